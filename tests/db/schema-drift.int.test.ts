/**
 * Fails when prisma/schema.prisma and the SQL migrations disagree. The Prisma schema engine (which
 * `prisma migrate diff` needs) cannot be downloaded here, so the schema is read with Prisma's own
 * Wasm parser (get_dmmf) and compared with what the migrations actually create in a fresh database:
 * tables, columns (type, length, precision, nullability, default present), enums, indexes and
 * foreign keys, in both directions.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import pg from "pg";
import { createTestDatabase } from "../support/db.ts";

const require = createRequire(import.meta.url);
const wasm = require("@prisma/prisma-schema-wasm") as { get_dmmf: (p: string) => string };

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: "scalar" | "enum" | "object";
  type: string;
  isRequired: boolean;
  isList: boolean;
  hasDefaultValue: boolean;
  isUpdatedAt: boolean;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
}
interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}

const schemaPath = path.resolve(import.meta.dirname, "../../prisma/schema.prisma");
const dmmf = JSON.parse(
  wasm.get_dmmf(JSON.stringify({ prismaSchema: [["schema.prisma", readFileSync(schemaPath, "utf8")]] })),
).datamodel as {
  models: DmmfModel[];
  enums: Array<{ name: string; dbName?: string | null; values: Array<{ name: string; dbName?: string | null }> }>;
  indexes: Array<{
    model: string;
    type: "id" | "unique" | "normal" | "fulltext";
    dbName?: string | null;
    fields: Array<{ name: string }>;
  }>;
};

/**
 * Fields of type Unsupported("…") (a generated tsvector, say): the DMMF leaves them out, so they are
 * read from the schema text, by model: name, column, database type, nullability, default present.
 */
const schemaText = readFileSync(path.resolve(import.meta.dirname, "../../prisma/schema.prisma"), "utf8");
const unsupported = new Map<
  string,
  Array<{ name: string; column: string; type: string; notNull: boolean; hasDefault: boolean }>
>();
for (const block of schemaText.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
  const fields = [...block[2].matchAll(/^\s+(\w+)\s+Unsupported\("([^"]+)"\)(\?)?(.*)$/gm)].map((f) => ({
    name: f[1],
    column: /@map\("([^"]+)"\)/.exec(f[4])?.[1] ?? f[1],
    type: f[2],
    notNull: !f[3],
    hasDefault: f[4].includes("@default("),
  }));
  unsupported.set(block[1], fields);
}

const table = (m: DmmfModel) => m.dbName ?? m.name;
const column = (m: DmmfModel, field: string) => {
  const f = m.fields.find((x) => x.name === field);
  if (f) return f.dbName ?? f.name;
  const u = unsupported.get(m.name)?.find((x) => x.name === field);
  if (!u) throw new Error(`${m.name}.${field} is neither a field nor an Unsupported field`);
  return u.column;
};

/** The column type Postgres reports for a Prisma scalar (format_type text). */
function expectedType(f: DmmfField, enumNames: Set<string>): string {
  if (f.kind === "enum" || enumNames.has(f.type)) return `"${f.type}"`.replace(/^"([a-z_][a-z0-9_]*)"$/, "$1");
  const [native, args] = f.nativeType ?? [null, []];
  switch (native) {
    case "VarChar":
      return `character varying(${args[0]})`;
    case "Char":
      return `character(${args[0]})`;
    case "Uuid":
      return "uuid";
    case "SmallInt":
      return "smallint";
    case "Timestamptz":
      return `timestamp(${args[0] ?? 6}) with time zone`;
    case "Timestamp":
      return `timestamp(${args[0] ?? 6}) without time zone`;
    case "Text":
      return "text";
    case null:
      break;
    default:
      throw new Error(`add a mapping for native type ${native}`);
  }
  const base: Record<string, string> = {
    String: "text",
    Int: "integer",
    BigInt: "bigint",
    Boolean: "boolean",
    DateTime: "timestamp(3) without time zone",
    Float: "double precision",
    Json: "jsonb",
  };
  if (!base[f.type]) throw new Error(`add a mapping for ${f.type}`);
  return base[f.type];
}

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await db.drop();
});

const q = async <T = any>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[];

it("has the same tables", async () => {
  const actual = (
    await q<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'",
    )
  ).map((r) => r.table_name);
  expect(actual.sort()).toEqual(dmmf.models.map(table).sort());
});

it("has the same enums and values", async () => {
  const rows = await q<{ typname: string; labels: string[] }>(
    `SELECT t.typname, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
     FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid GROUP BY t.typname`,
  );
  const actual = Object.fromEntries(rows.map((r) => [r.typname, r.labels]));
  const expected = Object.fromEntries(
    dmmf.enums.map((e) => [e.dbName ?? e.name, e.values.map((v) => v.dbName ?? v.name)]),
  );
  expect(actual).toEqual(expected);
});

it("has the same columns, types, nullability and defaults", async () => {
  const enumNames = new Set(dmmf.enums.map((e) => e.name));
  for (const m of dmmf.models) {
    const rows = await q<{ column_name: string; type: string; not_null: boolean; has_default: boolean }>(
      `SELECT a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
              a.atthasdef AS has_default
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relname = $1 AND a.attnum > 0 AND NOT a.attisdropped`,
      [table(m)],
    );
    const actual = Object.fromEntries(
      rows.map((r) => [r.column_name, { type: r.type, notNull: r.not_null, hasDefault: r.has_default }]),
    );
    const expected = Object.fromEntries(
      m.fields
        .filter((f) => f.kind !== "object")
        .map((f) => [
          f.dbName ?? f.name,
          {
            // A list (String[]) is an array column: "text[]".
            type: `${expectedType(f, enumNames)}${f.isList ? "[]" : ""}`,
            notNull: f.isRequired,
            hasDefault: f.hasDefaultValue && !f.isUpdatedAt,
          },
        ]),
    );
    for (const u of unsupported.get(m.name) ?? []) {
      expected[u.column] = { type: u.type, notNull: u.notNull, hasDefault: u.hasDefault };
    }
    expect({ table: table(m), columns: actual }).toEqual({ table: table(m), columns: expected });
  }
});

// Indexes on expressions (the library's trigram index) cannot be declared in Prisma: they are left out.
it("has the same primary keys, unique and plain indexes", async () => {
  const rows = await q<{ table: string; unique: boolean; primary: boolean; columns: string[] }>(
    `SELECT t.relname AS table, ix.indisunique AS unique, ix.indisprimary AS primary,
            array_agg(a.attname::text ORDER BY k.ord) AS columns
     FROM pg_index ix
     JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord) ON true
     JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
     WHERE n.nspname = 'public' AND t.relname <> '_prisma_migrations' AND ix.indexprs IS NULL
     GROUP BY t.relname, ix.indexrelid, ix.indisunique, ix.indisprimary`,
  );
  const key = (tbl: string, kind: string, cols: string[]) => `${tbl}:${kind}:${cols.join(",")}`;
  const actual = rows.map((r) => key(r.table, r.primary ? "id" : r.unique ? "unique" : "normal", r.columns)).sort();
  const expected = dmmf.indexes
    .map((ix) => {
      const m = dmmf.models.find((x) => x.name === ix.model)!;
      return key(
        table(m),
        ix.type,
        ix.fields.map((f) => column(m, f.name)),
      );
    })
    .sort();
  expect(actual).toEqual(expected);
});

it("has the same foreign keys and delete rules", async () => {
  const rows = await q<{
    table: string;
    columns: string[];
    ref_table: string;
    ref_columns: string[];
    on_delete: string;
  }>(
    `SELECT c.conrelid::regclass::text AS table, c.confrelid::regclass::text AS ref_table,
            (SELECT array_agg(attname::text ORDER BY array_position(c.conkey, attnum)) FROM pg_attribute WHERE attrelid = c.conrelid AND attnum = ANY(c.conkey)) AS columns,
            (SELECT array_agg(attname::text ORDER BY array_position(c.confkey, attnum)) FROM pg_attribute WHERE attrelid = c.confrelid AND attnum = ANY(c.confkey)) AS ref_columns,
            c.confdeltype AS on_delete
     FROM pg_constraint c WHERE c.contype = 'f'`,
  );
  const del: Record<string, string> = { a: "NoAction", r: "Restrict", c: "Cascade", n: "SetNull", d: "SetDefault" };
  const actual = rows
    .map((r) => `${r.table}(${r.columns})->${r.ref_table}(${r.ref_columns}) ${del[r.on_delete]}`)
    .sort();
  const expected: string[] = [];
  for (const m of dmmf.models) {
    for (const f of m.fields) {
      if (f.kind !== "object" || !f.relationFromFields?.length) continue;
      const target = dmmf.models.find((x) => x.name === f.type)!;
      expected.push(
        `${table(m)}(${f.relationFromFields.map((c) => column(m, c))})->${table(target)}(${f.relationToFields!.map((c) => column(target, c))}) ${
          f.relationOnDelete ?? (f.isRequired ? "Restrict" : "SetNull")
        }`,
      );
    }
  }
  expect(actual).toEqual(expected.sort());
});
