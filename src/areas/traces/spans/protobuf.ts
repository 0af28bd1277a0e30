// OTLP/HTTP binary encoding: decodes an ExportTraceServiceRequest and encodes the response with
// the published opentelemetry-proto definitions kept in proto/ (see its README), loaded once at
// start by protobufjs. No hand-written wire decoding here: a schema we typed ourselves would drift
// from the protocol.
import path from 'node:path';
import protobuf from 'protobufjs';
import { problem } from '../../../infra/http/problems.js';
import { packagePath } from '../../../infra/lib/package-root.js';
import type { OtlpRequest } from './normalize.js';

const TRACE_SERVICE = 'opentelemetry/proto/collector/trace/v1/trace_service.proto';

function loadTraceService(): { request: protobuf.Type; response: protobuf.Type } {
  const protoDir = packagePath('proto');
  const root = new protobuf.Root();
  // Imports inside the files name paths from the definitions' root, as protoc's -I does.
  root.resolvePath = (_origin, target) => path.join(protoDir, target);
  root.loadSync(TRACE_SERVICE);
  return {
    request: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
    response: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
  };
}

/** The request and response message types; tests encode with them too. */
export const traceServiceTypes = loadTraceService();

/**
 * The request as the same plain object OTLP/JSON would give, except that ids and bytes values are
 * base64 (protobufjs' text form of bytes) and 64-bit integers are decimal strings.
 */
export function decodeTraceRequest(body: Uint8Array): OtlpRequest {
  let message: protobuf.Message;
  try {
    message = traceServiceTypes.request.decode(body);
  } catch (error) {
    throw problem('invalid-request', `the body is not a protobuf ExportTraceServiceRequest: ${(error as Error).message}`);
  }
  return traceServiceTypes.request.toObject(message, { longs: String, bytes: String, enums: Number }) as OtlpRequest;
}

/** An ExportTraceServiceResponse: empty when every span was accepted (OTLP/HTTP "Full Success"). */
export function encodeTraceResponse(rejectedSpans: number, errorMessage: string): Buffer {
  const message = rejectedSpans === 0 ? {} : { partialSuccess: { rejectedSpans, errorMessage } };
  return Buffer.from(traceServiceTypes.response.encode(traceServiceTypes.response.fromObject(message)).finish());
}
