// Settings: where alerts are sent. Platform admins add, pause and delete channels; addresses are
// masked (an incoming-webhook URL is itself a credential), a JSON webhook's secret is shown once.
import { ActionForm } from "@/components/action-form";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Notice } from "@/components/ui/empty-state";
import { CheckboxField, SelectField, TextField } from "@/components/ui/fields";
import { formatTime } from "@/components/ui/format";
import { Table, Td, Th } from "@/components/ui/table";
import type { Actor } from "@/lib/core/auth/actor";
import { can } from "@/lib/core/auth/permissions";
import { listAlertChannels, type ChannelView } from "@/lib/views/settings/list-channels";
import {
  createAlertChannelAction,
  deleteAlertChannelAction,
  disableAlertChannelAction,
  enableAlertChannelAction,
  testAlertChannelAction,
} from "./actions";

const kindLabels: Record<string, string> = {
  slack: "Slack webhook",
  webhook: "JSON webhook",
  email: "Email (SMTP)",
  audit_stream: "Audit stream (SIEM)",
};

function Health({ channel }: { channel: ChannelView }) {
  if (!channel.enabled) return <Badge tone="slate">paused</Badge>;
  if (channel.failing) return <Badge tone="red">failing</Badge>;
  if (channel.consecutiveFailures > 0) return <Badge tone="amber">{channel.consecutiveFailures} failed in a row</Badge>;
  if (channel.lastSuccessAt) return <Badge tone="green">delivering</Badge>;
  return <Badge tone="blue">nothing sent yet</Badge>;
}

export async function AlertChannelsCard({ actor }: { actor: Actor }) {
  const channels = await listAlertChannels({ actor });
  const manage = can(actor, "settings.manage");
  return (
    <Card title="Alert channels">
      <FailingChannelsNotice failing={channels.filter((c) => c.failing && c.enabled)} />
      <HowAlertsAreSent />
      {channels.length === 0 ? (
        <p className="text-sm text-slate-500">No channel yet: alerts are only shown in the dashboard.</p>
      ) : (
        <ChannelsTable channels={channels} manage={manage} />
      )}
      {manage ? <AddChannelForm /> : null}
    </Card>
  );
}

function FailingChannelsNotice({ failing }: { failing: ChannelView[] }) {
  if (failing.length === 0) return null;
  return (
    <Notice tone="warn">
      <strong>{failing.map((c) => `"${c.name}"`).join(", ")} keep failing:</strong> alerts are not reaching{" "}
      {failing.length === 1 ? "it" : "them"}. The last error is in the table; fix the address or the receiver, or pause
      the channel.
    </Notice>
  );
}

function HowAlertsAreSent() {
  return (
    <p className="mb-3 text-sm text-slate-700">
      Every alert goes to each enabled channel: a new alert at once, a reminder while it stays open and keeps recurring
      (at most once per ALERT_REPEAT_INTERVAL_MINUTES), and one digest when it is resolved. Messages go through the
      outbox, retried with backoff. A channel that fails is sent one message at a time until it answers, and one that
      stays down is tried about once per ALERT_REPEAT_INTERVAL_MINUTES; failing ALERT_CHANNEL_FAILURE_THRESHOLD times in
      a row raises an alert of its own, and its given-up messages are one alert on the Alerts page. Send a test checks a
      channel now. A channel marked <em>checkpoints</em> also keeps a copy of every signed audit checkpoint. An{" "}
      <em>audit stream</em> hears no alerts: it receives every audit entry, in order, signed like the JSON webhook, for
      a SIEM (docs/audit.md).
    </p>
  );
}

function ChannelsTable({ channels, manage }: { channels: ChannelView[]; manage: boolean }) {
  return (
    <Table label="Alert channels" stack>
      <thead>
        <tr>
          <Th>Channel</Th>
          <Th>Sends to</Th>
          <Th>Health</Th>
          {manage ? <Th>Actions</Th> : null}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {channels.map((channel) => (
          <tr key={channel.id} data-testid={`alert-channel-${channel.id}`}>
            <ChannelCell channel={channel} />
            <SendsToCell channel={channel} />
            <HealthCell channel={channel} />
            {manage ? <ChannelActionsCell channel={channel} /> : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

function ChannelCell({ channel }: { channel: ChannelView }) {
  return (
    <Td>
      <div className="font-medium">{channel.name}</div>
      <div className="text-xs text-slate-500">
        {kindLabels[channel.kind] ?? channel.kind} · added {formatTime(channel.createdAt)}
      </div>
      {channel.receivesCheckpoints ? (
        <div className="mt-1">
          <Badge tone="blue">checkpoints</Badge>
        </div>
      ) : null}
    </Td>
  );
}

function SendsToCell({ channel }: { channel: ChannelView }) {
  return (
    <Td className="break-all" label="Sends to">
      <div className="font-mono text-xs">{channel.target}</div>
      {channel.smtpRelay ? (
        <div className="font-mono text-xs text-slate-500">
          via {channel.smtpRelay} from {channel.fromAddress}
        </div>
      ) : null}
      {channel.secret ? <div className="font-mono text-xs text-slate-500">{channel.secret}</div> : null}
    </Td>
  );
}

function HealthCell({ channel }: { channel: ChannelView }) {
  return (
    <Td label="Health">
      <Health channel={channel} />
      <div className="mt-1 text-xs text-slate-500">
        last delivered {channel.lastSuccessAt ? formatTime(channel.lastSuccessAt) : "never"}
      </div>
      {channel.stream ? (
        <div className="mt-1 text-xs text-slate-700" data-testid={`stream-backlog-${channel.id}`}>
          backlog {channel.stream.backlog} entr{channel.stream.backlog === 1 ? "y" : "ies"} · sent up to seq{" "}
          {channel.stream.sentSeq}
          {channel.stream.retryAt ? ` · next try ${formatTime(channel.stream.retryAt)}` : ""}
        </div>
      ) : null}
      {channel.lastError && channel.consecutiveFailures > 0 ? (
        <div className="mt-1 break-words text-xs text-rose-700">{channel.lastError}</div>
      ) : null}
    </Td>
  );
}

function ChannelActionsCell({ channel }: { channel: ChannelView }) {
  return (
    <Td className="sm:max-w-xs">
      <div className="flex flex-wrap gap-2">
        <ActionForm
          action={testAlertChannelAction}
          hidden={{ channelId: channel.id }}
          submitLabel="Send a test"
          tone="secondary"
        />
        {channel.enabled ? (
          <ActionForm
            action={disableAlertChannelAction}
            hidden={{ channelId: channel.id }}
            submitLabel="Pause"
            tone="secondary"
          />
        ) : (
          <ActionForm
            action={enableAlertChannelAction}
            hidden={{ channelId: channel.id }}
            submitLabel="Enable"
            tone="secondary"
          />
        )}
        <ActionForm
          action={deleteAlertChannelAction}
          hidden={{ channelId: channel.id }}
          submitLabel="Delete"
          tone="danger"
          confirm={{
            prompt: `Delete "${channel.name}"? Messages still waiting for it are dropped.`,
            confirmLabel: "Yes, delete",
          }}
        />
      </div>
    </Td>
  );
}

function AddChannelForm() {
  return (
    <div className="mt-4 border-t border-slate-100 pt-4">
      <h3 className="mb-2 text-sm font-semibold text-slate-700">Add a channel</h3>
      <ActionForm action={createAlertChannelAction} submitLabel="Add channel" className="max-w-3xl">
        <div className="grid gap-3 sm:grid-cols-2">
          <SelectField
            label="Kind"
            name="kind"
            defaultValue="slack"
            options={[
              { value: "slack", label: "Slack-compatible incoming webhook" },
              { value: "webhook", label: "JSON webhook (Standard Webhooks signature)" },
              { value: "email", label: "Email over SMTP" },
              { value: "audit_stream", label: "Audit stream: every audit entry to a SIEM" },
            ]}
          />
          <TextField label="Name" name="name" placeholder="On-call chat" required />
          <div className="sm:col-span-2">
            <TextField
              label="Webhook URL, or the email recipients (comma separated)"
              name="target"
              placeholder="https://hooks.slack.com/services/…"
              required
            />
          </div>
          <TextField
            label="SMTP relay (email only)"
            name="smtpUrl"
            placeholder="smtp://user:password@mail.example.org:587"
          />
          <TextField label="Sender address (email only)" name="fromAddress" placeholder="keyhook@example.org" />
          <div className="sm:col-span-2">
            <CheckboxField
              label="Keep a copy of every signed audit checkpoint"
              name="receivesCheckpoints"
              hint="So a copy lives outside the database: it lets anyone check the audit log later."
            />
          </div>
        </div>
      </ActionForm>
    </div>
  );
}
