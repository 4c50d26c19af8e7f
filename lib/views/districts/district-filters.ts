// The Districts list's search, parsed from the query string: an over-long search is a message
// under the form, never cut and used.
import { tooLongMessage } from "../../core/errors";
import { firstParam, type QueryParams } from "../listing/query-filters";

export const MAX_DISTRICT_SEARCH = 200;

export function parseDistrictSearch(params: QueryParams): { search: string; errors: string[] } {
  const search = firstParam(params.q)?.trim() ?? "";
  if (search.length > MAX_DISTRICT_SEARCH)
    return { search: "", errors: [`Search is ${tooLongMessage(MAX_DISTRICT_SEARCH, search.length)}`] };
  return { search, errors: [] };
}
