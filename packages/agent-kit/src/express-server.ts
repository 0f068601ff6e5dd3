import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';

/**
 * An HTTP server for an express app whose requests and responses are born with the app's prototypes.
 *
 * express gives every request and response the app's prototype (`Object.setPrototypeOf` in `app.handle`). Changing an
 * object's prototype after it was made gives it a map of its own, and on Node 20 what such an object holds then
 * survives young-generation collections (the MCP server's paging promoted 46 MB instead of 2.6 MB through it, until it
 * left express). Here node:http makes them with those prototypes already (its `IncomingMessage` and `ServerResponse`
 * options), so express's call finds nothing to change; nothing else differs.
 */
export function expressHttpServer(app: Express): Server {
  class AppRequest extends IncomingMessage {}
  class AppResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {}
  // The chains stay express's (app.request -> express.request -> IncomingMessage.prototype), one link longer.
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  app.request = AppRequest.prototype as unknown as Express['request'];
  app.response = AppResponse.prototype as unknown as Express['response'];
  return createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, app);
}
