// The stored (and shown) payload keeps the contract's fields only (CONTRACT_FIELDS in
// event-schema.ts). Anything else a sender adds — a provider that puts key material in
// `data.secret`, say — is replaced BEFORE it is stored by a marker that keeps only its field name
// and size: {"secret": {"redacted": true, "bytes": 33}}. The ledger page applies the same rule to
// rows stored before it existed.
import { jsonByteLength } from "../json/print-json";
import { CONTRACT_DATA_FIELDS, CONTRACT_FIELDS } from "./event-schema";
import type { z } from "zod";

type RedactionMarker = { redacted: true; bytes: number };
type RedactedPayload = { payload: unknown; redacted: boolean };

type Fields = Readonly<Record<string, z.ZodType>>;

/**
 * `checkShapes`: also replace a contract field whose value does not match its schema. Needed for
 * events the schema did not validate field by field (unknown types) and for stored rows; a
 * parsed known event already matches, so ingest skips the work.
 */
export function redactPayload(body: unknown, options: { checkShapes: boolean }): RedactedPayload {
  if (!isPlainObject(body)) return { payload: markerFor(body), redacted: true };
  const data = body.data;
  const dataIsClean =
    data === undefined ||
    isMarker(data) ||
    (isPlainObject(data) && isClean(data, CONTRACT_DATA_FIELDS, options.checkShapes));
  if (dataIsClean && isClean(body, CONTRACT_FIELDS, options.checkShapes, "data"))
    return { payload: body, redacted: false };

  const entries = Object.keys(body).map((key): [string, unknown] => {
    const value = body[key];
    if (key === "data") {
      if (isMarker(value)) return [key, value];
      if (!isPlainObject(value)) return [key, markerFor(value)];
      return [
        key,
        Object.fromEntries(
          Object.keys(value).map((inner) => [
            inner,
            keptOrMarker(value[inner], CONTRACT_DATA_FIELDS, inner, options.checkShapes),
          ]),
        ),
      ];
    }
    return [key, keptOrMarker(value, CONTRACT_FIELDS, key, options.checkShapes)];
  });
  // fromEntries, not assignment: a "__proto__" key stays an own (marked) field.
  return { payload: Object.fromEntries(entries), redacted: true };
}

function isClean(object: Record<string, unknown>, fields: Fields, checkShapes: boolean, except?: string): boolean {
  for (const key of Object.keys(object)) {
    if (key === except) continue;
    if (!keeps(object[key], fields, key, checkShapes)) return false;
  }
  return true;
}

function keptOrMarker(value: unknown, fields: Fields, key: string, checkShapes: boolean): unknown {
  return keeps(value, fields, key, checkShapes) ? value : markerFor(value);
}

function keeps(value: unknown, fields: Fields, key: string, checkShapes: boolean): boolean {
  if (isMarker(value)) return true; // an earlier redaction (a stored row shown or replayed), kept as it is
  if (!Object.hasOwn(fields, key)) return false;
  return !checkShapes || fields[key]!.safeParse(value).success;
}

function markerFor(value: unknown): RedactionMarker {
  return { redacted: true, bytes: jsonByteLength(value) };
}

function isMarker(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    value.redacted === true &&
    typeof value.bytes === "number" &&
    Object.keys(value).length === 2
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
