// The account page's calls, under /api/auth/account (the use cases are in account/usecases.ts):
// - GET    /account                 who is logged in: e-mail, verification, plan, member since;
// - POST   /account/password        change the password (current one required; other logins end);
// - POST   /account/email           change the e-mail: a link goes to the new address, which takes
//                                   over only once confirmed (POST /account/email/confirm);
// - GET    /account/export          everything stored about the user, as a JSON download;
// - GET    /account/payments        billing history (the billing service's payments, newest first);
// - POST   /account/delete          delete the account after checking the password.
// DELETE /api/auth/account (the contract's call, auth/routes.ts) takes the password too; both send a
// confirmation e-mail (AuthService.deleteAccount).
import {
  accountExportSchema,
  accountSchema,
  emailChangeConfirmResponseSchema,
  emailChangeResponseSchema,
  emailSchema,
  languageSchema,
  newPasswordSchema,
  passwordSchema,
  paymentsResponseSchema,
  sessionSchema,
} from "@kikitori/shared";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import type { ZodApp } from "../zod-app.ts";
import type { AccountService } from "./usecases.ts";

export interface AccountRoutesOptions {
  account: AccountService;
  signer: TokenSigner;
  perIpPerMinute: number;
}

interface AccountRouteContext {
  account: AccountService;
  guard: ReturnType<typeof requireAuth>;
  limited: { rateLimit: { max: number; timeWindow: string } };
  tags: string[];
  security: { bearer: never[] }[];
}

export const accountRoutes: FastifyPluginAsyncZod<AccountRoutesOptions> = async (app, opts) => {
  const ctx: AccountRouteContext = {
    account: opts.account,
    guard: requireAuth(opts.signer),
    limited: { rateLimit: { max: opts.perIpPerMinute, timeWindow: "1 minute" } },
    tags: ["identity"],
    security: [{ bearer: [] }],
  };
  loginDetailRoutes(app, ctx);
  accountDataRoutes(app, ctx);
};

/** The account itself, its password and its e-mail address. */
function loginDetailRoutes(app: ZodApp, { account, guard, limited, tags, security }: AccountRouteContext): void {
  app.get(
    "/account",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "The logged-in account: e-mail, verification, plan, member since",
        security,
        response: { 200: accountSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => account.account(assertUid(req, undefined)),
  );

  app.post(
    "/account/password",
    {
      onRequest: guard,
      config: limited,
      schema: {
        tags,
        summary: "Change the password (the current one is required); other logins end, this one gets a new session",
        security,
        body: z.object({ currentPassword: passwordSchema, newPassword: newPasswordSchema }),
        response: { 200: sessionSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => account.changePassword(assertUid(req, undefined), req.body.currentPassword, req.body.newPassword),
  );

  app.post(
    "/account/email",
    {
      onRequest: guard,
      config: limited,
      schema: {
        tags,
        summary: "Ask to change the e-mail: a confirmation link goes to the new address (202)",
        security,
        body: z.object({ password: passwordSchema, newEmail: emailSchema, language: languageSchema.default("en") }),
        response: { 202: emailChangeResponseSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const out = await account.requestEmailChange(assertUid(req, undefined), b.password, b.newEmail, b.language);
      return reply.code(202).send(out);
    },
  );

  app.post(
    "/account/email/confirm",
    {
      config: limited,
      schema: {
        tags,
        summary: "Confirm a new e-mail address with the token from the link (every login ends)",
        body: z.object({ token: z.string().min(16).max(4096) }),
        response: { 200: emailChangeConfirmResponseSchema, ...errorResponses(400, 409, 429) },
      },
    },
    async (req) => account.confirmEmailChange(req.body.token),
  );
}

/** What the account holds: its payments, an export of its data, and its deletion. */
function accountDataRoutes(app: ZodApp, { account, guard, limited, tags, security }: AccountRouteContext): void {
  app.get(
    "/account/payments",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "Billing history: the account's payments, newest first",
        security,
        response: { 200: paymentsResponseSchema, ...errorResponses(401) },
      },
    },
    async (req) => ({ payments: await account.payments(assertUid(req, undefined)) }),
  );

  app.get(
    "/account/export",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "Download everything stored about the account (JSON)",
        security,
        response: { 200: accountExportSchema, ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      const data = await account.export(assertUid(req, undefined));
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .header("content-disposition", `attachment; filename="kikitori-data-${day}.json"`)
        .header("cache-control", "no-store")
        .send(data);
    },
  );

  app.post(
    "/account/delete",
    {
      onRequest: guard,
      config: limited,
      schema: {
        tags,
        summary: "Delete the account after checking the password; a confirmation e-mail follows",
        security,
        body: z.object({ password: passwordSchema }),
        response: { 204: z.null(), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      await account.deleteWithPassword(assertUid(req, undefined), req.body.password);
      return reply.code(204).send(null);
    },
  );
}
