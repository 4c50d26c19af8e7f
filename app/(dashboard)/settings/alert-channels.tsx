// Settings: where alerts are sent. Platform admins add, pause and delete channels; addresses are
// masked (an incoming-webhook URL is itself a credential), a JSON webhook's secret is shown once.
import { ActionForm } from "@/components/action-form";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Notice } from "@/components/ui/empty-state";
import { SelectField, TextField } from "@/components/ui/fields";
import { formatTime } from "@/components/ui/format";
import { Table, Td, Th } from "@/components/ui/table";
import type { Actor } from "@/lib/auth/actor";
import { can } from "@/lib/auth/permissions";
import { listAlertChannels, type ChannelView } from "@/lib/notifications/list-channels";
import {
  createAlertChannelAction,
  deleteAlertChannelAction,
  disableAlertChannelAction,
  enableAlertChannelAction,
} from "./actions";

const kindLabels: Record<string, string> = { slack: "Slack webhook", webhook: "JSON webhook", email: "Email (SMTP)" };

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
  const failing = channels.filter((c) => c.failing && c.enabled);
  return (
    <Card title="Alert channels">
      {failing.length > 0 ? (
        <Notice tone="warn">
          <strong>{failing.map((c) => `"${c.name}"`).join(", ")} keep failing:</strong> alerts are not reaching{" "}
          {failing.length === 1 ? "it" : "them"}. The last error is in the table; fix the address or the receiver, or
          pause the channel.
        </Notice>
      ) : null}
      <p className="mb-3 text-sm text-slate-700">
        Every alert goes to each enabled channel: a new alert at once, a reminder while it stays open and keeps
        recurring (at most once per ALERT_REPEAT_INTERVAL_MINUTES), and one digest when it is resolved. Messages go
        through the outbox, retried with backoff; a channel failing ALERT_CHANNEL_FAILURE_THRESHOLD times in a row
        raises an alert of its own.
      </p>
      {channels.length === 0 ? (
        <p className="text-sm text-slate-500">No channel yet: alerts are only shown in the dashboard.</p>
      ) : (
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
                <Td>
                  <div className="font-medium">{channel.name}</div>
                  <div className="text-xs text-slate-500">
                    {kindLabels[channel.kind] ?? channel.kind} · added {formatTime(channel.createdAt)}
                  </div>
                </Td>
                <Td className="break-all" label="Sends to">
                  <div className="font-mono text-xs">{channel.target}</div>
                  {channel.smtpRelay ? (
                    <div className="font-mono text-xs text-slate-500">
                      via {channel.smtpRelay} from {channel.fromAddress}
                    </div>
                  ) : null}
                  {channel.secret ? <div className="font-mono text-xs text-slate-500">{channel.secret}</div> : null}
                </Td>
                <Td label="Health">
                  <Health channel={channel} />
                  <div className="mt-1 text-xs text-slate-500">
                    last delivered {channel.lastSuccessAt ? formatTime(channel.lastSuccessAt) : "never"}
                  </div>
                  {channel.lastError && channel.consecutiveFailures > 0 ? (
                    <div className="mt-1 break-words text-xs text-rose-700">{channel.lastError}</div>
                  ) : null}
                </Td>
                {manage ? (
                  <Td>
                    <div className="flex flex-wrap gap-2">
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
                ) : null}
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {manage ? (
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
            </div>
          </ActionForm>
        </div>
      ) : null}
    </Card>
  );
}
