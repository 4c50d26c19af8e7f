import { Suspense } from "react";
import { ActionForm } from "@/components/action-form";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Notice } from "@/components/ui/empty-state";
import { formatTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, Td, Th } from "@/components/ui/table";
import type { Actor } from "@/lib/core/auth/actor";
import { can } from "@/lib/core/auth/permissions";
import { getPlatformSettings, type PlatformSettings } from "@/lib/views/settings/get-platform-settings";
import { requirePageActor } from "../../_lib/session";
import { registerWebhookAction } from "./actions";
import { AlertChannelsCard } from "./alert-channels";
import { SignatureTelemetryCard } from "./signature-telemetry";

export const metadata = { title: "Settings · Keyhook" };

const urlSources: Record<PlatformSettings["expectedUrl"]["source"], string> = {
  PROVIDER_WEBHOOK_URL: "from PROVIDER_WEBHOOK_URL",
  NEXTAUTH_URL: "derived from NEXTAUTH_URL (set PROVIDER_WEBHOOK_URL to choose it)",
  PORT: "derived from PORT on loopback: right for development only; set PROVIDER_WEBHOOK_URL",
};

export default async function SettingsPage() {
  const actor = await requirePageActor("settings.view");
  return (
    <>
      <PageHeader
        title="Settings"
        description="Where the provider sends our webhooks, which signing secrets this deployment accepts, and where alerts are sent."
      />
      <Suspense fallback={<Skeleton label="Checking the provider…" />}>
        <SettingsDetails actor={actor} />
      </Suspense>
    </>
  );
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid gap-1 py-2 sm:grid-cols-[14rem_1fr]">
      <dt className="text-sm text-slate-500">{label}</dt>
      <dd className="break-all text-sm">{children}</dd>
    </div>
  );
}

function YesNo({ value }: { value: boolean }) {
  return value ? <Badge tone="green">yes</Badge> : <Badge tone="slate">no</Badge>;
}

async function SettingsDetails({ actor }: { actor: Actor }) {
  const settings = await getPlatformSettings({ actor });
  return (
    <div className="space-y-6">
      <WebhookRegistrationCard settings={settings} manage={can(actor, "settings.manage")} />
      <SigningSecretsCard settings={settings} />
      <SignatureTelemetryCard actor={actor} />
      <AlertChannelsCard actor={actor} />
      <OtherSecretsCard settings={settings} />
    </div>
  );
}

function WebhookRegistrationCard({ settings, manage }: { settings: PlatformSettings; manage: boolean }) {
  const { registration, expectedUrl, provider } = settings;
  return (
    <Card title="Webhook registration">
      <RegistrationNotices settings={settings} />
      <dl className="divide-y divide-slate-100">
        <Row label="Registered hook id">
          {registration.hookId ? <span className="font-mono">{registration.hookId}</span> : "not registered yet"}
        </Row>
        <Row label="Registered URL">
          {registration.hookUrl ? <span className="font-mono">{registration.hookUrl}</span> : "—"}
        </Row>
        <Row label="Last registered">
          {formatTime(registration.updatedAt)}
          {registration.updatedBy ? ` by ${registration.updatedBy}` : ""}
        </Row>
        <Row label="URL the provider should call">
          <span className="font-mono">{expectedUrl.url}</span>
          <div className="text-xs text-slate-500">{urlSources[expectedUrl.source]}</div>
        </Row>
        <Row label="Provider API">
          <span className="font-mono">{settings.providerUrl}</span> <ProviderBadge provider={provider} />
        </Row>
      </dl>
      {manage ? (
        <div className="mt-4">
          <ActionForm action={registerWebhookAction} submitLabel="Register webhook now" tone="secondary">
            <p className="text-xs text-slate-500">
              Safe to repeat: it asks the provider first, changes nothing when the provider knows our hook for this URL,
              registers it again when the provider does not, and never makes the provider create a second hook for it.
            </p>
          </ActionForm>
        </div>
      ) : null}
    </Card>
  );
}

/** What is wrong with the registration, if anything: the provider's answer, then a URL that moved. */
function RegistrationNotices({ settings }: { settings: PlatformSettings }) {
  const { registration, expectedUrl, provider } = settings;
  return (
    <>
      {provider.kind === "unreachable" ? (
        <Notice tone="warn">
          <strong>Provider unreachable:</strong> {provider.message}. The stored registration below is still ours;
          registering needs the provider.
        </Notice>
      ) : null}
      {provider.kind === "key_refused" ? (
        <Notice tone="warn">
          <strong>The provider refused our API key:</strong> {provider.message}.
        </Notice>
      ) : null}
      {provider.kind === "hook_missing" ? (
        <Notice tone="warn">
          <strong>Our webhook is not registered at the provider:</strong> it no longer knows hook{" "}
          <span className="font-mono">{provider.hookId}</span>, so it delivers nothing to us. Register now to register
          the URL below again.
        </Notice>
      ) : null}
      {registration.hookId && registration.hookUrl !== expectedUrl.url ? (
        <Notice tone="warn">
          The registered URL differs from the URL the provider should call. Register now to point the provider at it.
        </Notice>
      ) : null}
    </>
  );
}

function ProviderBadge({ provider }: { provider: PlatformSettings["provider"] }) {
  if (provider.kind === "reachable") return <Badge tone="green">reachable</Badge>;
  if (provider.kind === "hook_missing") return <Badge tone="amber">reachable · hook unknown</Badge>;
  if (provider.kind === "key_refused") return <Badge tone="amber">key refused</Badge>;
  return <Badge tone="red">unreachable</Badge>;
}

function SigningSecretsCard({ settings }: { settings: PlatformSettings }) {
  return (
    <Card title="Signing secrets">
      <p className="mb-3 text-sm text-slate-700">
        {settings.secrets.length === 1 ? "1 secret is" : `${settings.secrets.length} secrets are`} configured in
        WEBHOOK_SECRETS; a delivery signed with any of them is accepted. Shown as fingerprints (the first 8 hex
        characters of the secret&apos;s SHA-256), never the secret itself.
      </p>
      <Table label="Signing secrets">
        <thead>
          <tr>
            <Th>#</Th>
            <Th>Fingerprint</Th>
            <Th>Note</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {settings.secrets.map((secret, index) => (
            <tr key={`${index}-${secret.fingerprint}`}>
              <Td>{index + 1}</Td>
              <Td className="font-mono">{secret.fingerprint}</Td>
              <Td className="text-xs">
                {secret.isDevelopmentSecret ? <Badge tone="amber">public development secret</Badge> : "—"}
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
      <p className="mt-3 text-sm text-slate-700">
        {settings.publicKeys.length === 0
          ? "No Ed25519 public key is configured in WEBHOOK_PUBLIC_KEYS: v1a signatures are not accepted."
          : `${settings.publicKeys.length} Ed25519 public key${settings.publicKeys.length === 1 ? " is" : "s are"} configured in WEBHOOK_PUBLIC_KEYS: a v1a signature by the provider's private key is accepted too.`}
      </p>
      {settings.publicKeys.length > 0 ? (
        <ul className="mt-2 space-y-1 text-xs">
          {settings.publicKeys.map((publicKey) => (
            <li key={publicKey.fingerprint} className="break-all font-mono">
              {publicKey.fingerprint} · {publicKey.key}
            </li>
          ))}
        </ul>
      ) : null}
      <p className="mt-3 text-sm text-slate-600">
        To rotate: add the new secret to WEBHOOK_SECRETS alongside the old one and restart, so both are accepted; then
        switch the provider to the new secret; once it signs only with the new one, remove the old secret and restart
        again.
      </p>
    </Card>
  );
}

function OtherSecretsCard({ settings }: { settings: PlatformSettings }) {
  return (
    <Card title="Other secrets">
      <dl className="divide-y divide-slate-100">
        <Row label="METRICS_TOKEN set">
          <YesNo value={settings.metricsTokenSet} />
        </Row>
        <Row label="CRON_SECRET set">
          <YesNo value={settings.cronSecretSet} />
        </Row>
      </dl>
    </Card>
  );
}
