// Dictation: record the microphone with MediaRecorder (webm/opus), send it to the server's on-device
// speech-to-text, and hand the transcript to the composer. Click toggles; holding the button for at least
// HOLD_MS records until release (push to talk).
import { ApiError, type Capability } from './api.js';
import { byId, clear, icon, ICONS } from './dom.js';
import { formatElapsed } from './format.js';
import { SILENCE_RMS, silenceEnds, silenceStopSeconds } from './dictation-silence.js';
import { UploadAborted, uploadMultipart, type UploadHandle } from './upload.js';

export const HOLD_MS = 300;
const MIME = 'audio/webm;codecs=opus';
/** Chunk interval: long enough to be cheap, short enough that stopping loses nothing. */
const TIMESLICE_MS = 250;
/** Long recordings stop by themselves: the transcriber handles them in 30 s pieces, but hours are a mistake. */
export const MAX_RECORDING_MS = 10 * 60 * 1000;
const METER_FFT = 1024;
/** RMS of speech is small; scale so normal speech fills most of the meter. */
const METER_GAIN = 4;

export const DENIED_MESSAGE =
  'Microphone access was denied. Allow microphone access for Satchel in your browser or system settings, then try again.';
export const NO_DEVICE_MESSAGE =
  'No microphone was found. Connect a microphone (or enable it in your system settings), then try again.';
export const INSECURE_MESSAGE = 'Recording needs a secure page (http://127.0.0.1 or https). Open Satchel through its local address.';

/** The message for a getUserMedia/MediaRecorder failure. */
export function micErrorMessage(err: unknown): string {
  const name = err instanceof DOMException || err instanceof Error ? err.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError' || name === 'PermissionDeniedError') return DENIED_MESSAGE;
  if (name === 'NotFoundError' || name === 'DevicesNotFoundError' || name === 'OverconstrainedError') return NO_DEVICE_MESSAGE;
  if (name === 'NotReadableError') return 'The microphone is busy or could not be opened. Close other apps using it, then try again.';
  return `Could not start recording: ${err instanceof Error ? err.message : String(err)}`;
}

type State = 'idle' | 'starting' | 'recording' | 'transcribing';

/**
 * What a dictation came to, for a page that routes its transcript elsewhere (quick capture's push-to-talk,
 * ptt-flow.ts): the microphone opened, the recording is being transcribed, or it ended with no text (silence,
 * Esc, or a failure the voice bar shows). A transcript itself goes to `insert`.
 */
export type VoiceEvent = 'recording' | 'transcribing' | 'empty' | 'cancelled' | 'failed';

/**
 * Why dictation cannot be offered, in words a person can act on, or null when it can. The probe says only
 * `{available, provider}`: an unavailable `local` provider means this machine's speech engine or model is
 * missing (an installer without the ONNX Runtime binding for it, such as an Intel Mac's).
 */
export function dictationUnavailableReason(cap: Pick<Capability, 'available' | 'provider'> | null, hasRecorder: boolean): string | null {
  if (!hasRecorder) return 'Dictation is not available: this browser cannot record audio.';
  if (!cap) return 'Dictation is not available: the server did not say whether it can transcribe.';
  if (cap.available) return null;
  if (cap.provider === 'local') {
    return 'Dictation is not available: on-device speech is not installed for this machine. A hosted speech provider can be configured instead (see README, Configuration).';
  }
  if (cap.provider === 'none' || !cap.provider) return 'Dictation is off: speech-to-text is turned off or no provider is configured (see README, Configuration).';
  return `Dictation is not available: the ${cap.provider} speech provider is not set up (see README, Configuration).`;
}

export class Voice {
  private readonly button = byId<HTMLButtonElement>('mic-button');
  private readonly bar = byId('voice-bar');
  private readonly indicator = byId('recording-indicator');
  private readonly elapsed = byId('recording-elapsed');
  private readonly meter = byId('level-meter');
  private readonly status = byId('voice-status');
  private readonly error = byId('voice-error');
  private state: State = 'idle';
  private stream: MediaStream | null = null;
  private recorder: MediaRecorder | null = null;
  private audio: AudioContext | null = null;
  private chunks: Blob[] = [];
  private startedAt = 0;
  private frame = 0;
  private pressAt = 0;
  private pressStarted = false;
  private stopWanted = false;
  private cancelled = false;
  private upload: UploadHandle<{ ok: boolean; transcript: string }> | null = null;
  private provider = '';

  /** The recording ended by releasing a held button (push to talk), not by a second click. */
  private releasedHold = false;
  /** The button or push-to-talk key is held down now: silence never ends the recording then. */
  private holding = false;
  /** When the microphone last heard more than silence (performance.now()). */
  private lastSoundAt = 0;
  /** This recording's seconds of silence before it stops (read at its start: Settings may change it). */
  private silenceSeconds = 0;

  /** `insert` gets the transcript and whether it was spoken with the button held (push to talk). */
  constructor(
    private readonly insert: (text: string, held: boolean) => void,
    private readonly observe: (event: VoiceEvent) => void = () => undefined,
  ) {
    this.button.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      // The recording bar appears and moves the button: capture keeps the release ours wherever it happens.
      try {
        this.button.setPointerCapture(e.pointerId);
      } catch {
        // capture is an improvement only
      }
      this.pressAt = performance.now();
      this.holding = true;
      this.pressStarted = false;
      this.releasedHold = false;
      if (this.state === 'idle') {
        this.pressStarted = true;
        void this.start();
      }
    });
    this.button.addEventListener('pointerup', (e) => {
      if (e.button !== 0) return;
      this.holding = false;
      const held = performance.now() - this.pressAt >= HOLD_MS;
      // A press that started recording ends it only when held (push to talk); a short press leaves it on.
      if (this.pressStarted ? held : this.state === 'recording' || this.state === 'starting') {
        this.releasedHold = this.pressStarted && held;
        this.stop();
      }
    });
    // Keyboard activation (Enter/Space) arrives as a click with detail 0: toggle.
    this.button.addEventListener('click', (e) => {
      if (e.detail !== 0) return;
      if (this.state === 'idle') void this.start();
      else if (this.state === 'recording' || this.state === 'starting') this.stop();
    });
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && (this.state === 'recording' || this.state === 'starting' || this.state === 'transcribing')) this.cancel();
    });
    this.render();
  }

  /** The microphone is open or its recording is being transcribed (Esc then cancels it, not the page). */
  get busy(): boolean {
    return this.state !== 'idle';
  }

  /** A push-to-talk key went down (the capture page's): record until holdEnd(). */
  holdStart(): void {
    if (this.state !== 'idle' || this.unavailable !== null) return;
    this.releasedHold = false;
    this.holding = true;
    void this.start();
  }

  /** The push-to-talk key came up: stop and transcribe (as releasing a held button does). */
  holdEnd(): void {
    this.holding = false;
    if (this.state !== 'recording' && this.state !== 'starting') return;
    this.releasedHold = true;
    this.stop();
  }

  /** A press of a global push-to-talk shortcut (the desktop shell): it has no key-up, so each press toggles. */
  toggle(): void {
    if (this.state === 'idle') {
      this.holdStart();
      // No key-up will come: it records until the next press, or silence.
      this.holding = false;
    } else if (this.state === 'recording' || this.state === 'starting') this.holdEnd();
  }

  /** Why dictation is not offered (shown on the disabled microphone), or null when it is. */
  private unavailable: string | null = null;

  setCapability(cap: Capability | null): void {
    this.unavailable = dictationUnavailableReason(cap, typeof MediaRecorder !== 'undefined');
    this.provider = cap?.provider ?? '';
    // Shown either way: a missing microphone button would leave the person guessing; a disabled one says why.
    this.button.hidden = false;
    this.button.dataset.provider = this.provider;
    this.render();
  }

  private showError(text: string | null): void {
    this.error.hidden = !text;
    this.error.textContent = text ?? '';
  }

  private async start(): Promise<void> {
    this.showError(null);
    this.state = 'starting';
    this.stopWanted = false;
    this.cancelled = false;
    this.render();
    try {
      if (!navigator.mediaDevices?.getUserMedia) throw new Error(INSECURE_MESSAGE);
      this.stream = await navigator.mediaDevices.getUserMedia({
        // Raw audio: the browser's voice processing smears speech for a recogniser and can eat the first word.
        audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
      });
      // Esc while the microphone was still being opened (a permission prompt, a slow device): the person gave up,
      // so the stream that arrives now is closed instead of recording anyway.
      if (this.cancelled) {
        this.teardown();
        this.state = 'idle';
        this.render();
        return;
      }
      const options = MediaRecorder.isTypeSupported(MIME) ? { mimeType: MIME } : undefined;
      this.recorder = new MediaRecorder(this.stream, options);
      this.chunks = [];
      this.recorder.ondataavailable = (e) => {
        if (e.data.size > 0) this.chunks.push(e.data);
      };
      this.recorder.onstop = () => void this.finish();
      this.recorder.start(TIMESLICE_MS);
      this.startMeter(this.stream);
      this.startedAt = performance.now();
      this.lastSoundAt = this.startedAt;
      this.silenceSeconds = silenceStopSeconds();
      this.state = 'recording';
      this.render();
      this.observe('recording');
      this.tick();
      if (this.stopWanted) this.stop();
    } catch (err) {
      this.teardown();
      this.state = 'idle';
      this.render();
      this.showError(err instanceof Error && err.message === INSECURE_MESSAGE ? INSECURE_MESSAGE : micErrorMessage(err));
      this.observe('failed');
    }
  }

  private startMeter(stream: MediaStream): void {
    try {
      this.audio = new AudioContext();
      const source = this.audio.createMediaStreamSource(stream);
      const analyser = this.audio.createAnalyser();
      analyser.fftSize = METER_FFT;
      source.connect(analyser);
      const buf = new Float32Array(analyser.fftSize);
      const draw = () => {
        if (this.state !== 'recording') return;
        analyser.getFloatTimeDomainData(buf);
        let sum = 0;
        for (const v of buf) sum += v * v;
        const rms = Math.sqrt(sum / buf.length);
        if (rms >= SILENCE_RMS) this.lastSoundAt = performance.now();
        const level = Math.min(1, rms * METER_GAIN);
        this.meter.style.width = `${(level * 100).toFixed(1)}%`;
        this.meter.dataset.level = level.toFixed(3);
      };
      this.meterDraw = draw;
    } catch {
      this.meterDraw = null; // the meter is a nicety; recording works without it
    }
  }

  private meterDraw: (() => void) | null = null;

  private tick(): void {
    if (this.state !== 'recording') return;
    const ms = performance.now() - this.startedAt;
    this.elapsed.textContent = formatElapsed(ms);
    this.meterDraw?.();
    // Silence for the chosen seconds ends it as a second click would (only where the level can be measured).
    if (ms >= MAX_RECORDING_MS || (this.meterDraw && silenceEnds(performance.now(), this.lastSoundAt, this.silenceSeconds, this.holding))) {
      this.stop();
      return;
    }
    this.frame = requestAnimationFrame(() => this.tick());
  }

  stop(): void {
    if (this.state === 'starting') {
      this.stopWanted = true;
      return;
    }
    if (this.state !== 'recording' || !this.recorder) return;
    this.state = 'transcribing';
    this.render();
    this.observe('transcribing');
    this.recorder.stop(); // → onstop → finish()
  }

  private cancel(): void {
    this.cancelled = true;
    this.upload?.abort();
    if (this.recorder && this.recorder.state !== 'inactive') this.recorder.stop();
    else {
      this.teardown();
      this.state = 'idle';
      this.render();
    }
    this.status.textContent = 'Recording cancelled.';
    this.observe('cancelled');
  }

  private teardown(): void {
    cancelAnimationFrame(this.frame);
    this.stream?.getTracks().forEach((t) => t.stop());
    this.stream = null;
    void this.audio?.close().catch(() => undefined);
    this.audio = null;
    this.meterDraw = null;
    this.meter.style.width = '0%';
  }

  private async finish(): Promise<void> {
    const type = this.recorder?.mimeType || 'audio/webm';
    this.recorder = null;
    this.teardown();
    if (this.cancelled) {
      this.state = 'idle';
      this.render();
      return;
    }
    const blob = new Blob(this.chunks, { type });
    this.chunks = [];
    this.state = 'transcribing';
    this.render();
    try {
      this.upload = uploadMultipart('/api/transcribe', {}, [{ field: 'file', filename: 'recording.webm', blob }]);
      const res = await this.upload.promise;
      const text = (res.transcript ?? '').trim();
      if (text) {
        this.insert(text, this.releasedHold);
        this.status.textContent = '';
      } else {
        this.status.textContent = 'No speech was recognised. Try again, a little closer to the microphone.';
        this.observe('empty');
      }
    } catch (err) {
      if (!(err instanceof UploadAborted)) {
        this.showError(err instanceof ApiError ? `Transcription failed: ${err.message}` : String(err));
        this.observe('failed');
      }
    } finally {
      this.upload = null;
      this.state = 'idle';
      this.render();
    }
  }

  private render(): void {
    const s = this.state;
    const recording = s === 'recording' || s === 'starting';
    clear(this.button);
    this.button.appendChild(icon([...(recording ? ICONS.stop : ICONS.mic)]));
    const via = this.provider ? ` (speech-to-text: ${this.provider})` : '';
    const label = recording ? 'Stop recording' : s === 'transcribing' ? 'Transcribing…' : `Dictate${via}`;
    this.button.setAttribute('aria-label', label);
    this.button.title = recording ? 'Stop recording' : `Dictate${via} — click to start and stop, or hold to talk`;
    this.button.setAttribute('aria-pressed', String(recording));
    this.button.classList.toggle('recording', recording);
    this.button.disabled = s === 'transcribing' || this.unavailable !== null;
    this.button.dataset.state = s;
    if (this.unavailable !== null) {
      this.button.title = this.unavailable;
      this.button.setAttribute('aria-label', this.unavailable);
      this.button.dataset.state = 'unavailable';
    }
    this.indicator.hidden = !recording;
    if (s === 'transcribing') this.status.textContent = 'Transcribing…';
    else if (this.status.textContent === 'Transcribing…') this.status.textContent = '';
    this.bar.hidden = !recording && !this.status.textContent;
    if (s === 'starting') this.elapsed.textContent = formatElapsed(0);
  }
}
