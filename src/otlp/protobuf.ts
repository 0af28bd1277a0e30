// OTLP/HTTP binary encoding: decodes an ExportTraceServiceRequest and encodes the response with
// the published opentelemetry-proto definitions, as compiled to protobufjs code by the
// OpenTelemetry JS project (@opentelemetry/otlp-transformer 0.215.0, the last release that ships
// them for traces). No hand-written wire decoding here: a schema we typed ourselves would drift
// from the protocol.
import generated from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { problem } from '../http/problems.js';
import type { OtlpRequest } from './normalize.js';

interface MessageType {
  decode(reader: Uint8Array): object;
  encode(message: object): { finish(): Uint8Array };
  toObject(message: object, options: Record<string, unknown>): Record<string, unknown>;
}

const traceService = (generated as unknown as {
  opentelemetry: { proto: { collector: { trace: { v1: Record<'ExportTraceServiceRequest' | 'ExportTraceServiceResponse', MessageType> } } } };
}).opentelemetry.proto.collector.trace.v1;

/**
 * The request as the same plain object OTLP/JSON would give, except that ids and bytes values are
 * base64 (protobufjs' text form of bytes) and 64-bit integers are decimal strings.
 */
export function decodeTraceRequest(body: Uint8Array): OtlpRequest {
  let message: object;
  try {
    message = traceService.ExportTraceServiceRequest.decode(body);
  } catch (error) {
    throw problem('invalid-request', `the body is not a protobuf ExportTraceServiceRequest: ${(error as Error).message}`);
  }
  return traceService.ExportTraceServiceRequest.toObject(message, { longs: String, bytes: String, enums: Number }) as OtlpRequest;
}

/** An ExportTraceServiceResponse: empty when every span was accepted (OTLP/HTTP "Full Success"). */
export function encodeTraceResponse(rejectedSpans: number, errorMessage: string): Buffer {
  const message = rejectedSpans === 0 ? {} : { partialSuccess: { rejectedSpans, errorMessage } };
  return Buffer.from(traceService.ExportTraceServiceResponse.encode(message).finish());
}
