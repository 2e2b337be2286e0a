/**
 * @module
 * The time of a call event: ISO-8601 within the sane range of {@link eventLimits}; the client's
 * own format (`2026-05-01T12:00:00.000Z`) is read without `Date.parse`, which is the hot path of
 * reading an events file.
 */
import { eventLimits } from "./event-limits.ts";

/**
 * Epoch ms of an event time, or null when it is not a date-time in the sane range. The client's
 * own format (`2026-05-01T12:00:00.000Z`) is read without `Date.parse`.
 */
export function eventTime(text: string): number | null {
  // Reading a file asks twice for each event's time (validating, then counting): the second
  // time is the same string.
  if (text === lastText) return lastTime;
  lastText = text;
  lastTime = parseEventTime(text);
  return lastTime;
}

let lastText = "";
let lastTime: number | null = null;

function parseEventTime(text: string): number | null {
  let time: number;
  if (text.length === 24 && text.charCodeAt(23) === 90 /* Z */ && text.charCodeAt(10) === 84) {
    time = canonicalTime(text);
  } else {
    time = Date.parse(text);
  }
  return time >= eventLimits.minTime && time < eventLimits.maxTime ? time : null;
}

/** The day of the last canonical time read (events come in time order), and its start. */
let lastDay = Number.NaN;
let lastDayStart = Number.NaN;

/**
 * `YYYY-MM-DDTHH:MM:SS.sssZ` → epoch ms, NaN when a digit or separator is off. The same value as
 * `Date.UTC` of the fields, with `Date.UTC` asked once per day rather than once per event.
 */
function canonicalTime(text: string): number {
  if (
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(19) !== 46
  ) {
    return Number.NaN;
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  const milliseconds = digits(text, 20, 3);
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59)) {
    return Number.NaN;
  }
  if (!(second <= 59) || Number.isNaN(year) || Number.isNaN(milliseconds)) return Number.NaN;
  // Date.UTC would roll 2026-02-30 over into March; the event check has always refused it.
  if (day > daysInMonth(year, month)) return Number.NaN;
  const dayKey = (year * 16 + month) * 32 + day;
  if (dayKey !== lastDay) {
    lastDay = dayKey;
    lastDayStart = Date.UTC(year, month - 1, day);
  }
  return lastDayStart + ((hour * 60 + minute) * 60 + second) * 1000 + milliseconds;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** The decimal number in `text[from, from + length)`; NaN when a character is not a digit. */
function digits(text: string, from: number, length: number): number {
  let value = 0;
  for (let index = from; index < from + length; index += 1) {
    const code = text.charCodeAt(index) - 48;
    if (code < 0 || code > 9) return Number.NaN;
    value = value * 10 + code;
  }
  return value;
}
