// A fake judgment model on 127.0.0.1: a chat-completions server that answers each prompt from its
// text through the test's own rules (unless the test scripted the next answers).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeOpenAI, type FakeReply } from './fake-openai.js';

export class FakeJudge extends FakeOpenAI {
  constructor(private readonly judge: (body: any) => FakeReply) {
    super();
  }

  protected override answer(request: IncomingMessage, response: ServerResponse, body: any): void {
    if (this.script.length === 0) this.fallback = this.judge(body);
    super.answer(request, response, body);
  }
}
