import { Type } from '@sinclair/typebox';
import { LINK_ERROR_KINDS } from '../../../ports/link-prober.js';
import { Nullable } from './common.js';

const Finding = Type.Object({
  feature: Type.String({ description: 'The data set\'s feature title, e.g. `display:flex` or `<style> element`' }),
  notes: Type.Array(Type.String(), { description: 'The data set\'s notes on this client\'s support' }),
});

const ClientCompatibility = Type.Object({
  client: Type.String({ description: '`family.platform` as caniemail names it, e.g. `outlook.windows`' }),
  platform: Type.String(),
  platformName: Type.String({ examples: ['Windows', 'Desktop Webmail'] }),
  score: Type.Integer({ minimum: 0, maximum: 100, description: 'Share of the listed features this client supports (partial support counts half)' }),
  unsupported: Type.Array(Finding),
  partial: Type.Array(Finding),
});

export const HtmlCheckSchema = Type.Object(
  {
    emailId: Type.String(),
    dataset: Type.Object({
      name: Type.Literal('caniemail'),
      version: Type.String({ description: 'The data set\'s API version' }),
      updatedAt: Type.String({ description: 'When the data set was last updated, as it states it' }),
    }),
    score: Type.Integer({ minimum: 0, maximum: 100, description: 'Mean of every client\'s score' }),
    features: Type.Array(
      Type.Object({
        title: Type.String(),
        category: Type.Union([Type.Literal('html'), Type.Literal('css'), Type.Literal('image'), Type.Literal('others')]),
        url: Type.String({ description: 'The feature\'s page on caniemail.com' }),
        unsupportedBy: Type.Integer({ description: 'Clients that do not support it' }),
        partiallySupportedBy: Type.Integer({ description: 'Clients that support it partly' }),
      }),
      { description: 'Features the HTML uses that at least one client supports only partly or not at all, most unsupported first' },
    ),
    families: Type.Array(
      Type.Object({
        family: Type.String({ examples: ['outlook'] }),
        name: Type.String({ examples: ['Outlook'] }),
        score: Type.Integer({ minimum: 0, maximum: 100 }),
        clients: Type.Array(ClientCompatibility),
      }),
    ),
    clientsWithoutData: Type.Array(Type.Object({ client: Type.String(), feature: Type.String() }), {
      description: 'Clients left out because the data set has no result for a feature this HTML uses',
    }),
  },
  { title: 'HtmlCheck' },
);

const LinkHop = Type.Object({
  url: Type.String(),
  method: Type.Union([Type.Literal('HEAD'), Type.Literal('GET')]),
  statusCode: Type.Integer(),
});

export const LinkCheckSchema = Type.Object(
  {
    emailId: Type.String(),
    total: Type.Integer({ description: 'Distinct http(s) URLs of the mail\'s links and images' }),
    truncated: Type.Boolean({ description: 'More URLs than one check follows (200); the first 200 are listed' }),
    summary: Type.Object({ ok: Type.Integer(), broken: Type.Integer(), error: Type.Integer() }),
    links: Type.Array(
      Type.Object({
        url: Type.String(),
        kind: Type.Union([Type.Literal('link'), Type.Literal('image')]),
        result: Type.Union([Type.Literal('ok'), Type.Literal('broken'), Type.Literal('error')], {
          description: 'ok: final status below 400; broken: 400 or above; error: no final answer',
        }),
        finalUrl: Type.String({ description: 'The last URL requested, after redirects' }),
        statusCode: Nullable(Type.Integer({ description: 'Status of the final answer' })),
        redirects: Type.Array(LinkHop, { description: 'Each redirect followed (at most 5)' }),
        error: Nullable(
          Type.Object({
            kind: Type.Union(LINK_ERROR_KINDS.map((k) => Type.Literal(k))),
            message: Type.String(),
          }),
        ),
        durationMs: Type.Integer(),
      }),
    ),
  },
  { title: 'LinkCheck' },
);
