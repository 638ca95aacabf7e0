/** One Server-Sent Event as it arrived: `id` is null when the event carried none. */
export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

/**
 * An incremental reader of the `text/event-stream` wire format, written for
 * the tests (not the CLI's) so that the format itself is what they check:
 * `field: value` lines, a blank line ends an event, lines starting with `:`
 * are comments. Feed it decoded text as it arrives; each call returns the
 * events and comments completed by that text.
 */
export class SseParser {
  private buffer = '';

  push(text: string): { events: SseEvent[]; comments: string[] } {
    this.buffer += text;
    const events: SseEvent[] = [];
    const comments: string[] = [];
    let cut: number;
    while ((cut = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, cut);
      this.buffer = this.buffer.slice(cut + 2);
      const e: SseEvent = { id: null, event: 'message', data: '' };
      let hasData = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments.push(line.slice(1).trim());
        else if (line.startsWith('id: ')) e.id = line.slice(4);
        else if (line.startsWith('event: ')) e.event = line.slice(7);
        else if (line.startsWith('data: ')) {
          e.data += line.slice(6);
          hasData = true;
        }
      }
      if (hasData) events.push(e);
    }
    return { events, comments };
  }
}
