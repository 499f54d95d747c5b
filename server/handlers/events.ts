// GET /api/events: the server-sent event stream of the caller's profile, ended when the server stops.
import type { HandlerInput } from '../http/app.js';

export async function events({ app, ctx, profile }: HandlerInput): Promise<void> {
  app.events.serve(ctx, profile, app.stopping);
}
