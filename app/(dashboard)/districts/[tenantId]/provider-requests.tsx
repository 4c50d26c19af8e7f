// The district's recent requests to the provider, each with what became of it, in words: the
// message that lasts for an answer that can only come later (a refusal, a key that arrived stale).
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { formatTime, plural } from "@/components/ui/format";
import { KEY_CALL_REFUSALS } from "@/lib/operations/provider/api-schema";
import { PROVIDER_REQUEST_DAYS, type ProviderRequest } from "@/lib/views/districts/provider-requests";

const what = {
  "key.issue": "Issue a new key",
  "key.rotate": "Rotate",
  "key.revoke": "Revoke",
} as const;

/** The provider's refusal in words a person can act on; its own words for any other code. */
export function refusalWords(request: Pick<ProviderRequest, "kind" | "answer">): string {
  const answer = request.answer;
  switch (answer?.code) {
    case KEY_CALL_REFUSALS.activeKeyExists:
      return "the district already has an active key at the provider, which allows one at a time: rotate that key instead of issuing another";
    case KEY_CALL_REFUSALS.keyNotActive:
      return "the key is no longer active at the provider, so there is nothing to rotate";
    case KEY_CALL_REFUSALS.keyNotFound:
      return "the provider does not know this key for this district";
    default:
      return answer?.message ?? `it answered ${answer?.status ?? "with an error"}`;
  }
}

function Outcome({ request, highWaterMark }: { request: ProviderRequest; highWaterMark: bigint }) {
  if (request.state === "pending")
    return request.attempts === 0 ? (
      <>
        <Badge tone="blue">sending</Badge> <span>On its way to the provider.</span>
      </>
    ) : (
      <>
        <Badge tone="amber">retrying</Badge>{" "}
        <span>
          No answer yet after {plural(request.attempts, "attempt")}
          {request.lastError ? ` (${request.lastError})` : ""}; trying again at {formatTime(request.nextAttemptAt)}.
        </span>
      </>
    );
  if (request.state === "failed")
    return request.refused ? (
      <>
        <Badge tone="red">refused</Badge>{" "}
        <span data-testid="request-refusal">
          The provider refused: {refusalWords(request)}. Nothing changed at the provider.
        </span>
      </>
    ) : (
      <>
        <Badge tone="red">failed</Badge>{" "}
        <span>
          Gave up after {plural(request.attempts, "attempt")}
          {request.lastError ? ` (${request.lastError})` : ""}. It may not have reached the provider: check the key
          there before asking again.
        </span>
      </>
    );
  // Sent: the provider accepted it. For a new key, what became of it here.
  const made = request.answer?.madeKeyId;
  if (request.kind === "key.revoke")
    return (
      <>
        <Badge tone="green">done</Badge> <span>The provider revoked {request.keyId}.</span>
      </>
    );
  const did = request.kind === "key.rotate" ? `replaced ${request.keyId} with ${made}` : `issued ${made}`;
  if (!request.madeKey)
    return (
      <>
        <Badge tone="green">done</Badge>{" "}
        <span>The provider {did}; it appears here when the provider&apos;s webhook arrives.</span>
      </>
    );
  if (request.madeKey.arrivedStale)
    return (
      <>
        <Badge tone="amber">arrived stale</Badge>{" "}
        <span data-testid="request-stale">
          The provider {did}, and numbered its webhook sequence {String(request.madeKey.arrivedStale.sequence)}. This
          district already activated a key at sequence {String(highWaterMark)} here, so an older activation activates
          nothing: {made} is recorded superseded, not active, and may still work at the provider. The provider&apos;s
          numbering for this district is behind ours (events with higher sequences reached us from elsewhere, such as
          ones sent by hand). Revoke {made}; a new key becomes active here once the provider&apos;s sequence passes{" "}
          {String(highWaterMark)}.
        </span>
      </>
    );
  return (
    <>
      <Badge tone="green">done</Badge>{" "}
      <span>
        The provider {did}; it is {request.madeKey.status} here.
      </span>
    </>
  );
}

export function ProviderRequestsCard({
  requests,
  highWaterMark,
}: {
  requests: ProviderRequest[];
  highWaterMark: bigint;
}) {
  if (requests.length === 0) return null;
  return (
    <Card title="Requests to the provider">
      <p className="mb-3 text-xs text-slate-600">
        Issue, rotate and revoke are sent to the provider by the worker; its answer shows here (the last{" "}
        {PROVIDER_REQUEST_DAYS} days, newest first).
      </p>
      <ol className="space-y-3 text-sm" aria-label="Requests to the provider">
        {requests.map((request) => (
          <li
            key={request.id}
            data-request-kind={request.kind}
            data-request-state={request.state}
            className="border-b border-slate-100 pb-2 [overflow-wrap:anywhere]"
          >
            <div className="font-medium text-slate-800">
              {what[request.kind]}
              {request.keyId ? ` ${request.keyId}` : ""}
              {request.kind === "key.issue" && request.scopes.length ? ` (${request.scopes.join(", ")})` : ""}
            </div>
            <div className="text-xs text-slate-500">
              asked {request.requestedBy ? `by ${request.requestedBy} ` : ""}at {formatTime(request.requestedAt)}
            </div>
            <div className="mt-1 text-slate-700">
              <Outcome request={request} highWaterMark={highWaterMark} />
            </div>
          </li>
        ))}
      </ol>
    </Card>
  );
}
