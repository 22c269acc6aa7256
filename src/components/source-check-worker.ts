// The thread the save-time source checks run on (./source-checker.ts): a parse can take seconds
// (Babel's TypeScript plugin backtracks on nested `<T>(`), and the server's event loop must not wait.
import { checkContent, sourceViolations } from './source-check.ts';
import type { CheckRequest } from './source-checker.ts';

declare const self: Worker;

self.onmessage = (event: MessageEvent<CheckRequest>) => {
  const request = event.data;
  const violations = request.kind === 'content'
    ? (() => {
        const result = checkContent(request.content);
        return result.ok ? [] : result.errors;
      })()
    : sourceViolations(request.body, request.componentKind);
  self.postMessage(violations);
};
