import { FxDocumentError, parseFxDocument, type FxFormat, type FxRateInput } from '@rota/contracts';

/** Where exchange rates come from. The worker ships an HTTP source; anything else implements this. */
export interface FxSource {
  /** A label stored with every rate (for the HTTP source, `http:<host>`). */
  readonly name: string;
  fetch(): Promise<FxRateInput[]>;
}

/** Largest answer read from a source. */
const MAX_BYTES = 1024 * 1024;

/**
 * Rates from one HTTP GET (`ROTA_FX_URL`), in one of the documented formats
 * (`ROTA_FX_FORMAT`, see `parseFxDocument`), under a deadline and a size cap.
 * The URL is the operator's own setting, so it may name a host on the
 * operator's network (an internal rates service).
 */
export class HttpFxSource implements FxSource {
  readonly name: string;

  constructor(
    private readonly url: string,
    private readonly format: FxFormat,
    private readonly timeoutMs: number,
  ) {
    this.name = `http:${new URL(url).host}`;
  }

  async fetch(): Promise<FxRateInput[]> {
    const res = await fetch(this.url, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!res.ok) throw new FxDocumentError(`the FX source answered HTTP ${res.status}`);
    const declared = Number(res.headers.get('content-length') ?? 0);
    if (declared > MAX_BYTES) throw new FxDocumentError(`the FX source's answer is larger than ${MAX_BYTES} bytes`);
    const text = await readCapped(res, MAX_BYTES);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new FxDocumentError('the FX source did not answer JSON');
    }
    return parseFxDocument(value, this.format);
  }
}

async function readCapped(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new FxDocumentError(`the FX source's answer is larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
