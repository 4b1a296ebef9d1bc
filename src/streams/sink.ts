// Where a stream's event lines go: an open response written piece by piece. The HTTP side
// (server/streamSink.ts) implements it for HTTP/1.1 chunked responses and HTTP/2 streams.

export interface StreamSink {
  /** Writes a chunk now. False once the client is not keeping up: wait for drained() before more. */
  write(text: string): boolean;
  /** Bytes written but not yet handed to the connection. */
  readonly buffered: number;
  /** Bytes written in all (UTF-8), for the query log. */
  readonly written: number;
  /** True once the response ended or the client went away: later writes are dropped. */
  readonly closed: boolean;
  /** Resolves when the buffer has drained, or the sink closed. */
  drained(): Promise<void>;
  /** Ends the response normally (what is buffered is still delivered). */
  end(): void;
  /** Drops the response at once (a client that does not read). */
  destroy(): void;
  /** Called once when the response is over, whoever ended it (immediately if it already is). */
  onClose(fn: () => void): void;
}
