import "server-only";
// The one way to write a machine route (what a program calls: the metrics scrape, the cron purge,
// the CSV exports, the live token), the way action() is for server actions: it authorizes at its
// top, by a bearer token from a setting or by a signed-in session's permission, then runs the
// handler. An AppError becomes its documented status (http/to-response.ts), anything else a 500.
import { bearerMatches } from "@/http/bearer-token";
import { respond, toResponse } from "@/http/to-response";
import type { Actor } from "@/lib/core/auth/actor";
import type { Permission } from "@/lib/core/auth/permissions";
import { AppError } from "@/lib/core/errors";
import { requireRouteActor } from "./session";

/** A token from a setting; `unset` is what the route answers while the setting is empty. */
type BearerCaller = { bearer: { token: () => string | undefined; realm: string; unset: AppError } };
type SessionCaller = { permission: Permission };

export function machineRoute(
  name: string,
  caller: BearerCaller,
  handler: (request: Request) => Promise<Response>,
): (request: Request) => Promise<Response>;
export function machineRoute(
  name: string,
  caller: SessionCaller,
  handler: (request: Request, actor: Actor) => Promise<Response>,
): (request: Request) => Promise<Response>;
export function machineRoute(
  name: string,
  caller: BearerCaller | SessionCaller,
  handler: (request: Request, actor: Actor) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return (request) =>
    respond(name, async () => {
      if ("bearer" in caller) {
        const token = caller.bearer.token();
        if (!token) throw caller.bearer.unset;
        if (!bearerMatches(request.headers.get("authorization"), token))
          return toResponse(new AppError("unauthorized", "missing or wrong bearer token"), {
            "www-authenticate": `Bearer realm="${caller.bearer.realm}"`,
          });
        return (handler as (request: Request) => Promise<Response>)(request);
      }
      const actor = await requireRouteActor(caller.permission);
      if (actor instanceof Response) return actor;
      return handler(request, actor);
    });
}
