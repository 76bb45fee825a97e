import type { Email } from './email.js';

/** The chat app refuses message content longer than this. */
const MAX_CONTENT = 2000;

/** A chat-app message body: one short summary line set plus one embed linking to the dashboard. */
export interface ChatMessage {
  content: string;
  embeds: Array<{ title: string; description: string; url: string; fields: Array<{ name: string; value: string; inline: boolean }> }>;
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export function buildChatMessage(email: Email, dashboardLink: string): ChatMessage {
  const subject = email.subject || '(no subject)';
  return {
    content: clip(`New email from ${email.from || '<>'}: ${subject}`, MAX_CONTENT),
    embeds: [
      {
        title: clip(subject, 256),
        description: clip(email.snippet, 1024),
        url: dashboardLink,
        fields: [
          { name: 'From', value: clip(email.from || '<>', 256), inline: true },
          { name: 'To', value: clip(email.to.join(', ') || '-', 256), inline: true },
        ],
      },
    ],
  };
}
