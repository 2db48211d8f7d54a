import type { PatchTranscriptionInput, TranscriptionSnapshot } from "@kikitori/shared";
import { type RefObject, useCallback, useEffect, useRef, useState } from "react";
import { isApiError } from "../api/errors.ts";
import { patchTranscription } from "./api.ts";

/** saved: nothing waiting; unsaved: changes wait for the pause; saving: on the way; conflict: changed elsewhere. */
export type SaveState = "saved" | "unsaved" | "saving" | "conflict" | "error";

/** Seconds of quiet typing before an edit is saved (and when a failed save is tried again). */
export const SAVE_DELAY_MS = 1000;
export const RETRY_DELAY_MS = 5000;

export interface EditorValues {
  title: string;
  segments: string[];
  /** Who says each segment (undefined where no voices were told apart). */
  speakers: Array<number | undefined>;
  interview: string;
}

export interface Dirty {
  title: boolean;
  interview: boolean;
  segments: Set<number>;
}

export const cleanDirty = (): Dirty => ({ title: false, interview: false, segments: new Set() });
export const isDirty = (d: Dirty) => d.title || d.interview || d.segments.size > 0;

/** The PATCH body for what changed since the last save, based on `version`; null when nothing did. */
export function editBody(version: number, values: EditorValues, dirty: Dirty): PatchTranscriptionInput | null {
  if (!isDirty(dirty)) return null;
  return {
    version,
    ...(dirty.title ? { title: values.title.trim() || null } : {}),
    ...(dirty.interview ? { rewrittenText: values.interview } : {}),
    ...(dirty.segments.size
      ? {
          segments: [...dirty.segments]
            .sort((a, b) => a - b)
            .map((index) => {
              const speaker = values.speakers[index];
              return { index, text: values.segments[index] ?? "", ...(speaker !== undefined ? { speaker } : {}) };
            }),
        }
      : {}),
  };
}

export function valuesOf(s: TranscriptionSnapshot): EditorValues {
  return {
    title: s.title,
    segments: s.segments.map((x) => x.text),
    speakers: s.segments.map((x) => x.speaker),
    interview: s.rewrittenText ?? "",
  };
}

/** The server's newer values, with what the user changed and has not saved yet (`d`) kept from `mine`. */
export function rebasedValues(fresh: EditorValues, mine: EditorValues, d: Dirty): EditorValues {
  return {
    title: d.title ? mine.title : fresh.title,
    interview: d.interview ? mine.interview : fresh.interview,
    segments: fresh.segments.map((text, i) => (d.segments.has(i) ? (mine.segments[i] ?? text) : text)),
    speakers: fresh.speakers.map((sp, i) => (d.segments.has(i) ? mine.speakers[i] : sp)),
  };
}

/** The editor's setters of one field each, marking what they change as unsaved. */
function useFieldSetters(change: (update: (v: EditorValues, d: Dirty) => EditorValues) => void) {
  const setTitle = useCallback(
    (title: string) =>
      change((v, d) => {
        d.title = true;
        return { ...v, title };
      }),
    [change],
  );
  const setSegment = useCallback(
    (index: number, text: string) =>
      change((v, d) => {
        d.segments.add(index);
        const segments = v.segments.slice();
        segments[index] = text;
        return { ...v, segments };
      }),
    [change],
  );
  /** Gives segments (a turn) to another speaker. */
  const setSpeaker = useCallback(
    (indexes: number[], speaker: number) =>
      change((v, d) => {
        const speakers = v.speakers.slice();
        for (const i of indexes) {
          speakers[i] = speaker;
          d.segments.add(i);
        }
        return { ...v, speakers };
      }),
    [change],
  );
  const setInterview = useCallback(
    (interview: string) =>
      change((v, d) => {
        d.interview = true;
        return { ...v, interview };
      }),
    [change],
  );

  return { setTitle, setSegment, setSpeaker, setInterview };
}

/** Leaving with unsaved edits: saves now, and lets the browser ask before closing the tab. */
function useSaveOnLeave(
  dirty: RefObject<Dirty>,
  inFlight: RefObject<boolean>,
  save: () => Promise<void>,
  clearTimer: () => void,
) {
  useEffect(() => {
    const warn = (e: BeforeUnloadEvent) => {
      if (isDirty(dirty.current) || inFlight.current) {
        void save();
        e.preventDefault();
      }
    };
    window.addEventListener("beforeunload", warn);
    return () => {
      window.removeEventListener("beforeunload", warn);
      clearTimer();
      if (isDirty(dirty.current)) void save();
    };
  }, [dirty, inFlight, save, clearTimer]);
}

/** The job page's editor, as useJobEditor gives it. */
export type JobEditor = ReturnType<typeof useJobEditor>;

/**
 * The job page's editor: local values, what changed, and saving after a pause in typing (and on
 * demand). Each save sends only the changed parts with the version it is based on; a refused stale
 * write stops saving and says so (the user's text stays on screen until they load the latest).
 */
export function useJobEditor(initial: TranscriptionSnapshot, onSaved: (s: TranscriptionSnapshot) => void) {
  const [values, setValues] = useState<EditorValues>(() => valuesOf(initial));
  const [state, setState] = useState<SaveState>("saved");
  const [error, setError] = useState<unknown>(null);
  const version = useRef(initial.version);
  const dirty = useRef<Dirty>(cleanDirty());
  const latest = useRef(values);
  const inFlight = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const stateRef = useRef(state);
  stateRef.current = state;
  const onSavedRef = useRef(onSaved);
  onSavedRef.current = onSaved;

  const clearTimer = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
  }, []);

  const save = useCallback(async (): Promise<void> => {
    clearTimer();
    if (inFlight.current || stateRef.current === "conflict") return;
    const sent = dirty.current;
    const body = editBody(version.current, latest.current, sent);
    if (!body) return;
    dirty.current = cleanDirty();
    inFlight.current = true;
    setState("saving");
    try {
      const snapshot = await patchTranscription(initial.jobId, body);
      version.current = snapshot.version;
      onSavedRef.current(snapshot);
      setError(null);
      if (isDirty(dirty.current)) {
        setState("unsaved");
        timer.current = setTimeout(() => void save(), SAVE_DELAY_MS);
      } else setState("saved");
    } catch (e) {
      // What was sent is still unsaved.
      for (const i of sent.segments) dirty.current.segments.add(i);
      dirty.current.title ||= sent.title;
      dirty.current.interview ||= sent.interview;
      setError(e);
      if (isApiError(e) && e.code === "VERSION_CONFLICT") setState("conflict");
      else {
        setState("error");
        // Passing faults (network, 5xx) are tried again; a refused edit (4xx) waits for the next change.
        if (!isApiError(e) || e.status === 0 || e.status >= 500) {
          timer.current = setTimeout(() => void save(), RETRY_DELAY_MS);
        }
      }
    } finally {
      inFlight.current = false;
    }
  }, [initial.jobId, clearTimer]);

  const change = useCallback(
    (update: (v: EditorValues, d: Dirty) => EditorValues) => {
      const next = update(latest.current, dirty.current);
      latest.current = next;
      setValues(next);
      if (stateRef.current !== "conflict") setState("unsaved");
      clearTimer();
      timer.current = setTimeout(() => void save(), SAVE_DELAY_MS);
    },
    [save, clearTimer],
  );

  const setters = useFieldSetters(change);

  /** Saves what is pending now and waits for it (before an export, a restore or leaving). */
  const flush = useCallback(async () => {
    for (let i = 0; inFlight.current && i < 300; i++) await new Promise((r) => setTimeout(r, 100));
    await save();
  }, [save]);

  /** Takes a snapshot from elsewhere (a speaker rename, a restore, "load the latest") as the new base. */
  const reset = useCallback(
    (snapshot: TranscriptionSnapshot) => {
      clearTimer();
      version.current = snapshot.version;
      dirty.current = cleanDirty();
      latest.current = valuesOf(snapshot);
      setValues(latest.current);
      setError(null);
      setState("saved");
    },
    [clearTimer],
  );

  /**
   * Takes the server's newer snapshot (the interview text brought up to the transcript) as the base,
   * keeping what the user typed meanwhile: their unsaved lines and title stay, and their unsaved
   * interview text stays too (its save is then refused as stale, and they choose to reload).
   */
  const rebase = useCallback((snapshot: TranscriptionSnapshot) => {
    const d = dirty.current;
    if (!d.interview) version.current = snapshot.version;
    latest.current = rebasedValues(valuesOf(snapshot), latest.current, d);
    setValues(latest.current);
  }, []);

  /** The version the next save is based on. */
  const currentVersion = useCallback(() => version.current, []);

  useSaveOnLeave(dirty, inFlight, save, clearTimer);

  return { values, state, error, ...setters, save, flush, reset, rebase, currentVersion };
}
