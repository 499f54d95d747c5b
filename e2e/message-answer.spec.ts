/// <reference lib="dom" />
// Sending without an agent in a conversation: the server answers the stored row alone (`answer: "summary"`) and
// the page folds it in; it neither reads the whole conversation again after Send nor when its own change event
// arrives (at 10,000 messages each read was 10 MB and hundreds of milliseconds).
import { expect, newSession, test } from './fixtures.js';

test('a message sent without an agent is shown without reading the whole session again', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  const reads: string[] = [];
  const answers: string[] = [];
  page.on('request', (req) => {
    if (new URL(req.url()).pathname === '/api/session') reads.push(req.url());
  });
  page.on('response', (res) => {
    if (res.url().includes('/api/session/message')) void res.text().then((body) => answers.push(body));
  });
  for (const text of ['first note', 'second note']) {
    await page.getByTestId('composer-input').fill(text);
    await page.getByTestId('send').click();
    await expect(page.getByTestId('message').last()).toContainText(text);
  }
  await expect.poll(() => answers.length).toBe(2);
  // Past the event's debounce (100 ms) with room: a re-read would have been requested by now.
  await page.waitForTimeout(800);
  expect(reads).toEqual([]);
  expect(JSON.parse(answers[1]!)).toMatchObject({ session: { session_id: id, message_count: 2 }, message_index: 1, message: { content: 'second note' } });
  await expect(page.getByTestId('message')).toHaveCount(2);
  // What was folded in is what is stored: a reload shows the same two messages.
  await page.reload();
  await expect(page.getByTestId('message')).toHaveCount(2);
  await expect(page.getByTestId('message').last()).toContainText('second note');
});
