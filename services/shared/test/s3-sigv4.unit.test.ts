import { verifySigV4 } from "../src/server/s3-sigv4.ts";

// The worked examples of the S3 Signature Version 4 documentation ("Examples: signature calculations
// in AWS Signature Version 4", header-based authentication).
const creds = { accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const at = Date.UTC(2013, 4, 24, 0, 0, 0);
const auth = (signed: string, sig: string) =>
  `AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=${signed},Signature=${sig}`;

const getObject = {
  method: "GET",
  url: "/test.txt",
  headers: {
    host: "examplebucket.s3.amazonaws.com",
    range: "bytes=0-9",
    "x-amz-content-sha256": EMPTY,
    "x-amz-date": "20130524T000000Z",
    authorization: auth(
      "host;range;x-amz-content-sha256;x-amz-date",
      "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
    ),
  },
};

const listObjects = {
  method: "GET",
  url: "/?max-keys=2&prefix=J",
  headers: {
    host: "examplebucket.s3.amazonaws.com",
    "x-amz-content-sha256": EMPTY,
    "x-amz-date": "20130524T000000Z",
    authorization: auth(
      "host;x-amz-content-sha256;x-amz-date",
      "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
    ),
  },
};

describe("verifySigV4", () => {
  it("accepts the documented examples", () => {
    expect(verifySigV4(getObject, creds, at)).toBeNull();
    expect(verifySigV4(listObjects, creds, at)).toBeNull();
  });

  it("refuses anonymous requests and other schemes", () => {
    expect(verifySigV4({ ...getObject, headers: { host: "x" } }, creds, at)?.code).toBe("AccessDenied");
    const v2 = { ...getObject, headers: { ...getObject.headers, authorization: "AWS AKIAIOSFODNN7EXAMPLE:abc=" } };
    expect(verifySigV4(v2, creds, at)?.code).toBe("AccessDenied");
  });

  it("refuses another key, another secret, or any change to what was signed", () => {
    expect(verifySigV4(getObject, { ...creds, accessKey: "OTHER" }, at)?.code).toBe("InvalidAccessKeyId");
    expect(verifySigV4(getObject, { ...creds, secretKey: "other" }, at)?.code).toBe("SignatureDoesNotMatch");
    for (const changed of [
      { ...getObject, url: "/other.txt" },
      { ...getObject, method: "DELETE" },
      { ...getObject, headers: { ...getObject.headers, range: "bytes=0-99" } },
      { ...listObjects, url: "/?max-keys=1000&prefix=J" },
    ]) {
      expect(verifySigV4(changed, creds, at)?.code).toBe("SignatureDoesNotMatch");
    }
  });

  it("refuses a request signed more than 15 minutes away from now, or without host/date signed", () => {
    expect(verifySigV4(getObject, creds, at + 16 * 60_000)?.code).toBe("AccessDenied");
    expect(verifySigV4(getObject, creds, at - 16 * 60_000)?.code).toBe("AccessDenied");
    expect(verifySigV4(getObject, creds, at + 14 * 60_000)).toBeNull();
    const noHost = {
      ...getObject,
      headers: { ...getObject.headers, authorization: auth("range;x-amz-date", "0".repeat(64)) },
    };
    expect(verifySigV4(noHost, creds, at)?.code).toBe("AccessDenied");
  });
});
