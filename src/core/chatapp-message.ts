import type { Email } from './email.js';

/** The chat app refuses message content longer than this. */
const MAX_CONTENT = 2000;

/** A chat-app message body: one short summary line set plus one embed linking to the dashboard. */
export interface ChatMessage {
  content: string;
  embeds: Array<{ title: string; description: string; url: string; fields: Array<{ name: string; value: string; inline: boolean }> }>;
  /** Nothing the sender wrote may ping a channel, a role or a user: the chat app parses no mentions. */
  allowed_mentions: { parse: [] };
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * Mail fields are the sender's text: markdown in them (links, emphasis, code, headings, mention
 * syntax) is shown literally, and `@everyone` / `@here` get a zero-width space so they read inert
 * even where a client ignores allowed_mentions.
 */
export function escapeChatMarkdown(text: string): string {
  return text.replace(/[\\*_~`|<>[\]()#]/g, '\\$&').replace(/@(everyone|here)/gi, '@\u200b$1');
}

const field = (text: string, max: number) => clip(escapeChatMarkdown(text), max);

export function buildChatMessage(email: Email, dashboardLink: string): ChatMessage {
  const subject = email.subject || '(no subject)';
  const from = email.from || '<>';
  return {
    content: field(`New email from ${from}: ${subject}`, MAX_CONTENT),
    embeds: [
      {
        title: field(subject, 256),
        description: field(email.snippet, 1024),
        url: dashboardLink,
        fields: [
          { name: 'From', value: field(from, 256), inline: true },
          { name: 'To', value: field(email.to.join(', ') || '-', 256), inline: true },
        ],
      },
    ],
    allowed_mentions: { parse: [] },
  };
}
