import { useState } from 'preact/hooks';
import { MailroomApiError, type BodyOf, type CustomStorage } from '../../../src/client/index.js';
import { api } from '../api.js';
import { ConfirmButton, ErrorNote, Field, Loading, PageHeader, formValue, formatDate, useAction, useAsync, type FormEvent } from '../components/ui.js';

type StorageBody = BodyOf<'PUT /api/v1/storage'>;
type Provider = StorageBody['provider'];

const PROVIDERS: { value: Provider; label: string }[] = [
  { value: 'S3', label: 'S3 or S3-compatible (MinIO, R2, Ceph, …)' },
  { value: 'AZURE_BLOB', label: 'Azure Blob Storage' },
  { value: 'GCS', label: 'Google Cloud Storage' },
];

/** The credential inputs each provider takes (docs/storage.md); all are write-only. */
const CREDENTIALS: Record<Provider, { name: keyof StorageBody['credentials']; label: string; multiline?: boolean }[]> = {
  S3: [
    { name: 'accessKeyId', label: 'Access key id' },
    { name: 'secretAccessKey', label: 'Secret access key' },
  ],
  AZURE_BLOB: [
    { name: 'connectionString', label: 'Connection string (or account name and key below)' },
    { name: 'accountName', label: 'Account name' },
    { name: 'accountKey', label: 'Account key' },
  ],
  GCS: [{ name: 'serviceAccountJson', label: 'Service-account key (JSON)', multiline: true }],
};

/** GET /storage answers 404 STORAGE_NOT_CONFIGURED while mail stays with the service: that is not an error here. */
const currentStorage = () =>
  api.storage.get().catch((error: unknown) => {
    if (error instanceof MailroomApiError && error.code === 'STORAGE_NOT_CONFIGURED') return null;
    throw error;
  });

function bodyOf(event: FormEvent, provider: Provider): StorageBody {
  const checked = (name: string) => (event.currentTarget.elements.namedItem(name) as HTMLInputElement | null)?.checked ?? false;
  const optional = (name: string) => formValue(event, name) || undefined;
  const credentials: StorageBody['credentials'] = {};
  for (const { name } of CREDENTIALS[provider]) {
    const value = formValue(event, name);
    if (value !== '') credentials[name] = value;
  }
  return {
    provider,
    bucket: formValue(event, 'bucket'),
    region: optional('region'),
    endpoint: optional('endpoint'),
    prefix: optional('prefix'),
    forcePathStyle: provider === 'S3' ? checked('forcePathStyle') : undefined,
    metadataOnly: checked('metadataOnly'),
    credentials,
  };
}

function CurrentStorage({ storage, onRemove, busy }: { storage: CustomStorage | null; onRemove: () => void; busy: boolean }) {
  if (storage === null) {
    return (
      <div class="card" data-testid="storage-current">
        <h2>Mail is kept by this service</h2>
        <p class="muted">Save a bucket below to keep new mail (raw messages and attachments) in your own storage instead.</p>
      </div>
    );
  }
  return (
    <div class="card" data-testid="storage-current">
      <h2>New mail goes to your bucket</h2>
      <dl class="meta">
        <dt>Provider</dt>
        <dd>{PROVIDERS.find((p) => p.value === storage.provider)?.label ?? storage.provider}</dd>
        <dt>Bucket</dt>
        <dd>
          <code>{storage.bucket}</code>
        </dd>
        {storage.region === null ? null : (
          <>
            <dt>Region</dt>
            <dd>{storage.region}</dd>
          </>
        )}
        {storage.endpoint === null ? null : (
          <>
            <dt>Endpoint</dt>
            <dd>
              <code>{storage.endpoint}</code>
            </dd>
          </>
        )}
        <dt>Layout</dt>
        <dd>
          <code>{storage.pathLayout}</code>
        </dd>
        <dt>Bodies in Mailroom</dt>
        <dd>{storage.metadataOnly ? 'No: only headers and envelope are kept here' : 'Yes'}</dd>
        <dt>Since</dt>
        <dd>{formatDate(storage.createdAt)}</dd>
      </dl>
      <ConfirmButton
        label="Stop using this bucket"
        confirm="New mail will be kept by the service again. Mail already in the bucket stays there and stays readable. Continue?"
        disabled={busy}
        onConfirm={onRemove}
      />
    </div>
  );
}

/** docs/storage.md: view, set (checked with a probe object first), and remove the account's own bucket. */
export function StoragePage() {
  const storage = useAsync(currentStorage, []);
  const [provider, setProvider] = useState<Provider>('S3');
  const save = useAction();
  const remove = useAction();
  const [saved, setSaved] = useState(false);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const form = event.currentTarget;
    const body = bodyOf(event, provider);
    setSaved(false);
    void save.run(async () => {
      await api.storage.configure(body);
      form.reset();
      setSaved(true);
      storage.reload();
    });
  };
  const disable = () =>
    void remove.run(async () => {
      await api.storage.disable();
      storage.reload();
    });

  return (
    <section>
      <PageHeader title="Custom storage" />
      {storage.data === undefined ? storage.loading ? <Loading /> : <ErrorNote error={storage.error} /> : <CurrentStorage storage={storage.data} onRemove={disable} busy={remove.busy} />}
      <ErrorNote error={remove.error} />
      <form class="card form-grid" onSubmit={submit} aria-label="Use your own bucket">
        <h2 class="form-title">{storage.data ? 'Switch to another bucket' : 'Use your own bucket'}</h2>
        <Field label="Provider">
          <select name="provider" value={provider} onChange={(event) => setProvider(event.currentTarget.value as Provider)}>
            {PROVIDERS.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
        </Field>
        <Field label={provider === 'AZURE_BLOB' ? 'Container' : 'Bucket'}>
          <input name="bucket" required minLength={3} maxLength={63} />
        </Field>
        {provider === 'S3' ? (
          <Field label="Region" hint="Optional (default us-east-1)">
            <input name="region" maxLength={50} placeholder="eu-west-1" />
          </Field>
        ) : null}
        <Field label="Endpoint" hint="Optional: an S3-compatible service URL, an Azure blob endpoint, a GCS API endpoint">
          <input name="endpoint" type="url" maxLength={500} />
        </Field>
        <Field label="Folder prefix" hint="Optional, e.g. mailroom/">
          <input name="prefix" maxLength={200} />
        </Field>
        {CREDENTIALS[provider].map((c) => (
          <Field key={`${provider}-${c.name}`} label={c.label} hint="Stored encrypted, never shown again">
            {c.multiline ? <textarea name={c.name} rows={4} autoComplete="off" /> : <input name={c.name} type="password" autoComplete="off" />}
          </Field>
        ))}
        {provider === 'S3' ? (
          <label class="check">
            <input type="checkbox" name="forcePathStyle" /> Path-style URLs (most S3-compatible services)
          </label>
        ) : null}
        <label class="check">
          <input type="checkbox" name="metadataOnly" /> Keep no bodies in Mailroom, only headers and envelope
        </label>
        <div class="form-actions">
          <button type="submit" disabled={save.busy}>
            {save.busy ? 'Testing the bucket…' : 'Test and save'}
          </button>
        </div>
        <p class="muted">Saving first writes, reads and deletes a probe object; a bucket that fails is not saved and the provider's error is shown.</p>
        {saved ? (
          <p class="success" role="status">
            The bucket passed the check; new mail goes there.
          </p>
        ) : null}
        <ErrorNote error={save.error} />
      </form>
    </section>
  );
}
