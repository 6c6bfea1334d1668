// sound.js - the table's sound effects, made with WebAudio on the spot (no
// audio files): a chime for the viewer's turn, a tap for a play, a low blip
// for a pass, a rumble for a bomb or the rocket, a rising or falling phrase
// for a win or a loss, a run for a straight, a sweep for an airplane, a
// chime for spring, and the call of 报单/报双 (a voice where the browser
// has one, speak()). Muted by a switch kept in localStorage ("ddz.mute").
// Browsers let a page sound only after a click or a key: until then the
// context stays suspended and nothing is heard, which is harmless.

let ctx = null;
let muted = false;
try { muted = localStorage.getItem('ddz.mute') === '1'; } catch { /* storage off */ }

export const isMuted = () => muted;

/* Switches the sounds off (true) or on; remembered across visits. */
export function setMuted(on) {
  muted = !!on;
  try { localStorage.setItem('ddz.mute', muted ? '1' : '0'); } catch { /* storage off */ }
}

function audio() {
  if (!ctx) {
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return null;
    ctx = new AC();
  }
  if (ctx.state === 'suspended') ctx.resume().catch(() => {});
  return ctx;
}

/* One tone: frequency f (Hz) from `at` seconds on, for d seconds, sliding
 * to f2 when given. */
function tone(a, { f, f2 = f, at = 0, d = 0.12, type = 'sine', gain = 0.18 }) {
  const t0 = a.currentTime + at;
  const o = a.createOscillator();
  const g = a.createGain();
  o.type = type;
  o.frequency.setValueAtTime(f, t0);
  if (f2 !== f) o.frequency.exponentialRampToValueAtTime(f2, t0 + d);
  g.gain.setValueAtTime(gain, t0);
  g.gain.exponentialRampToValueAtTime(0.001, t0 + d);
  o.connect(g).connect(a.destination);
  o.start(t0);
  o.stop(t0 + d + 0.02);
}

/* A burst of noise, for the bomb. */
function noise(a, d = 0.5) {
  const n = Math.floor(a.sampleRate * d);
  const buf = a.createBuffer(1, n, a.sampleRate);
  const data = buf.getChannelData(0);
  for (let i = 0; i < n; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / n) ** 2;
  const src = a.createBufferSource();
  const g = a.createGain();
  g.gain.value = 0.35;
  src.buffer = buf;
  src.connect(g).connect(a.destination);
  src.start();
}

const CUES = {
  turn: (a) => { tone(a, { f: 880, d: 0.12 }); tone(a, { f: 1320, at: 0.12, d: 0.18 }); },
  play: (a) => tone(a, { f: 520, f2: 300, d: 0.07, type: 'triangle', gain: 0.22 }),
  pass: (a) => tone(a, { f: 220, d: 0.1, type: 'sine', gain: 0.12 }),
  bomb: (a) => { noise(a, 0.6); tone(a, { f: 120, f2: 40, d: 0.6, type: 'sawtooth', gain: 0.2 }); },
  win: (a) => [523, 659, 784, 1047].forEach((f, i) => tone(a, { f, at: i * 0.11, d: 0.16, type: 'triangle' })),
  tick: (a) => tone(a, { f: 1500, d: 0.04, type: 'square', gain: 0.08 }), // the last seconds of a clock
  lose: (a) => [392, 330, 262].forEach((f, i) => tone(a, { f, at: i * 0.14, d: 0.2, type: 'triangle' })),
  // issue 25: a straight runs up the scale, an airplane sweeps past, spring
  // rings out; a seat down to two cards or one beeps twice or once (the
  // voice's stand-in where the browser has none)
  straight: (a) => [440, 494, 554, 587, 659].forEach((f, i) => tone(a, { f, at: i * 0.05, d: 0.08, type: 'triangle', gain: 0.15 })),
  plane: (a) => tone(a, { f: 300, f2: 1200, d: 0.45, type: 'sawtooth', gain: 0.08 }),
  spring: (a) => [784, 988, 1175, 1568].forEach((f, i) => tone(a, { f, at: i * 0.08, d: 0.3, type: 'sine', gain: 0.14 })),
  report1: (a) => tone(a, { f: 1046, d: 0.22, type: 'square', gain: 0.1 }),
  report2: (a) => { tone(a, { f: 988, d: 0.12, type: 'square', gain: 0.1 }); tone(a, { f: 988, at: 0.18, d: 0.12, type: 'square', gain: 0.1 }); },
};

/* Plays the cue `name` unless muted. Returns whether it was played. */
export function cue(name) {
  if (muted || !CUES[name]) return false;
  const a = audio();
  if (!a) return false;
  CUES[name](a);
  return true;
}

/* Says `text` aloud in the language `tag` ('zh' or 'en') through the
 * browser's speech synthesis, as a player calls 报单 at the table; where
 * the browser has no voice for that language, plays the cue `fallback`
 * instead. Nothing while muted. Returns 'voice', 'cue' or null (silent). */
export function speak(text, tag, fallback) {
  if (muted) return null;
  const ss = window.speechSynthesis;
  const Utt = window.SpeechSynthesisUtterance;
  // the voices load late in some browsers: an empty list now means none yet
  const voices = ss && Utt ? ss.getVoices() : [];
  const voice = voices.find((v) => String(v.lang).toLowerCase().startsWith(tag));
  if (voice) {
    const u = new Utt(text);
    u.voice = voice;
    u.lang = voice.lang;
    u.rate = 1.1;
    ss.cancel(); // a call already out of date is dropped, not queued behind
    ss.speak(u);
    return 'voice';
  }
  return cue(fallback) ? 'cue' : null;
}

/* Whether the viewer asked for less motion: the table's effects are then
 * skipped (the sounds stay). */
export function calm() {
  return !!(window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches);
}

/* The tab's title while the page is hidden and it is the viewer's turn: a
 * marker that a background tab shows; the usual title otherwise. */
export function turnTitle(yourTurn, text, usual) {
  const want = yourTurn && document.hidden ? `\u25B6 ${text} · ${usual}` : usual;
  if (document.title !== want) document.title = want;
}
