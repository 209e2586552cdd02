import { Readable } from 'node:stream';
import type * as ClientS3 from '@aws-sdk/client-s3';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type * as LibStorage from '@aws-sdk/lib-storage';
import { message } from './errors.ts';
import { type ArchiveTarget, assertObjectName, type ObjectBody, ObjectNotFoundError } from './target.ts';

export interface S3TargetOptions {
  bucket: string;
  /** Key prefix, a folder of the bucket ('' or e.g. 'usage-archive/prod'); slashes at its ends are ignored. */
  prefix?: string;
  /** An S3-compatible store's endpoint (e.g. `http://127.0.0.1:9000`); AWS's own when absent. */
  endpoint?: string;
  region?: string;
  /** Path-style addressing (`endpoint/bucket/key`), which most S3-compatible stores need. */
  forcePathStyle?: boolean;
  /**
   * Part size of multipart uploads (at least 5 MiB, S3's minimum); an object smaller than one part is
   * sent in a single PutObject. Memory held by a write is about two parts.
   */
  partSize?: number;
  /**
   * Anything else for the client (tests pass static credentials; a store that rejects the SDK's default
   * CRC checksums takes `requestChecksumCalculation: 'WHEN_REQUIRED'`). Credentials otherwise come from the
   * SDK's default chain: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, IMDS.
   */
  clientConfig?: S3ClientConfig;
}

/** The object key of `name` under `prefix`: 'a/b' + 'x' is 'a/b/x', '' + 'x' is 'x'. */
export function s3Key(prefix: string, name: string): string {
  const folder = prefix.replace(/^\/+|\/+$/g, '');
  return folder === '' ? assertObjectName(name) : `${folder}/${assertObjectName(name)}`;
}

const MIN_PART = 5 * 1024 * 1024;

/**
 * An S3 bucket, or an S3-compatible store, through the AWS SDK v3. An object appears whole or not at
 * all (a PutObject, or a multipart upload that is completed only after its body ended without error
 * and is aborted otherwise), so a failed write leaves no partial object under its key.
 */
export class S3Target implements ArchiveTarget {
  readonly uri: string;
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partSize: number;

  /**
   * A target, the AWS SDK loaded for it. Imported at the top, the SDK was loaded by every ledger start
   * whatever its archive (a bundle hoists the imports of a module it loads lazily): about 40 ms of a
   * 0.55 s start, the pause of a restarting shard's accounts.
   */
  static async open(options: S3TargetOptions): Promise<S3Target> {
    const [s3, storage] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
    return new S3Target(options, { s3, storage });
  }

  private constructor(
    options: S3TargetOptions,
    private readonly sdk: { s3: typeof ClientS3; storage: typeof LibStorage },
  ) {
    const { S3Client } = sdk.s3;
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/.test(options.bucket))
      throw new Error(`not a bucket name: ${JSON.stringify(options.bucket)}`);
    this.bucket = options.bucket;
    this.prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.partSize = Math.max(MIN_PART, options.partSize ?? 8 * 1024 * 1024);
    this.uri = `s3://${this.bucket}/${this.prefix === '' ? '' : `${this.prefix}/`}`;
    this.client = new S3Client({
      ...options.clientConfig,
      ...(options.region !== undefined ? { region: options.region } : {}),
      ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
      ...(options.forcePathStyle !== undefined ? { forcePathStyle: options.forcePathStyle } : {}),
    });
  }

  private key(name: string): string {
    return s3Key(this.prefix, name);
  }

  uriOf(name: string): string {
    return `s3://${this.bucket}/${this.key(name)}`;
  }

  async write(name: string, body: ObjectBody, options: { contentType?: string } = {}): Promise<void> {
    // The body's own failure is the one to report: the SDK reports a failed abort instead when the
    // store refuses AbortMultipartUpload (s3rver does).
    let bodyError: { err: unknown } | undefined;
    async function* watched(source: AsyncIterable<Uint8Array>) {
      try {
        yield* source;
      } catch (err) {
        bodyError = { err };
        throw err;
      }
    }
    const upload = new this.sdk.storage.Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: this.key(name),
        Body: body instanceof Uint8Array ? body : Readable.from(watched(body)),
        ...(options.contentType !== undefined ? { ContentType: options.contentType } : {}),
      },
      partSize: this.partSize,
      queueSize: 1,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      if (bodyError && bodyError.err !== err) throw new Error(message(bodyError.err), { cause: err });
      throw err;
    }
  }

  async read(name: string): Promise<Readable> {
    try {
      const res = await this.client.send(
        new this.sdk.s3.GetObjectCommand({ Bucket: this.bucket, Key: this.key(name) }),
      );
      if (!(res.Body instanceof Readable)) throw new Error(`no readable body for ${this.uriOf(name)}`);
      return res.Body;
    } catch (err) {
      if (isNotFound(err)) throw new ObjectNotFoundError(this.uriOf(name));
      throw err;
    }
  }

  async exists(name: string): Promise<boolean> {
    try {
      await this.client.send(new this.sdk.s3.HeadObjectCommand({ Bucket: this.bucket, Key: this.key(name) }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /** Closes the client's sockets. */
  close(): void {
    this.client.destroy();
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  // A missing bucket is a configuration error, never "no such day".
  if (e?.name === 'NoSuchBucket') return false;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}
