//! The recorder: synthesizes a circuit once and writes its A, B, C into the compact CSR of [`super::Pce`].
//!
//! The synthesizing thread keeps the witness and the fingerprint and hands each constraint's terms, in
//! batches, to the encoder (`super::encode`) on a thread of its own, which merges, classes and digests them;
//! the two overlap, so recording takes about as long as synthesis itself. Per constraint the terms are the
//! raw ones (a variable counts as used even when its coefficients cancel, exactly as the prover's bitmaps
//! do).

use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};

use blstrs::Scalar;

use super::encode::{Encoder, RawTerm, RecordOptions, INPUT_TAG};
use super::error::PceError;
use super::layout::Pce;
use crate::cs::book::{Book, NoDensity};
use crate::cs::shape::mix;
use crate::cs::witness::{EV_ALLOC, EV_ENFORCE, EV_INPUT, FINGERPRINT_SEED};
use crate::cs::{Circuit, ConstraintSystem, Index, Lc, LinearCombination, Shape, SmallStore, Term, Variable};

/// Constraints per batch handed to the encoder: 4 096 constraints of the real C2 are ~1 MB of terms, so
/// the queue stays in cache-sized pieces and a batch costs one channel message.
const BATCH_ROWS: usize = 4096;
/// Batches queued ahead of the encoder before synthesis waits for it.
const QUEUE: usize = 4;

/// Consecutive constraints' raw terms.
#[derive(Default)]
struct Batch {
    /// Per constraint three ends into `terms` (A, B, C).
    ends: Vec<u32>,
    terms: Vec<RawTerm>,
}

impl Batch {
    fn encode_into(&self, enc: &mut Encoder) {
        let mut start = 0;
        for e in self.ends.chunks_exact(3) {
            let (ea, eb, ec) = (e[0] as usize, e[1] as usize, e[2] as usize);
            enc.row(&self.terms[start..ea], &self.terms[ea..eb], &self.terms[eb..ec]);
            start = ec;
        }
    }

    fn clear(&mut self) {
        self.ends.clear();
        self.terms.clear();
    }
}

/// Where full batches go: the encoder's thread (and its used batches back, for reuse), or an encoder on
/// this thread when no thread could be started.
enum Sink {
    Thread { to: SyncSender<Batch>, spare: Receiver<Batch> },
    Inline(Box<Encoder>),
}

/// The constraint system that records a circuit: the witness and fingerprint here, the terms to the encoder.
pub(super) struct Recorder {
    book: Book<NoDensity>,
    fingerprint: u64,
    batch: Batch,
    sink: Sink,
}

impl Recorder {
    /// Records `circuit`; the recorder keeps the witness it computed (`inputs`, `aux`).
    pub(super) fn run<C: Circuit + ?Sized>(
        circuit: &C,
        hint: Option<Shape>,
        options: RecordOptions,
    ) -> Result<(Pce, Vec<Scalar>, Vec<Scalar>), PceError> {
        Self::run_on(circuit, hint, options, true)
    }

    /// [`Recorder::run`], the encoder on a thread of its own when `threaded` and one can be started.
    fn run_on<C: Circuit + ?Sized>(
        circuit: &C,
        hint: Option<Shape>,
        options: RecordOptions,
        threaded: bool,
    ) -> Result<(Pce, Vec<Scalar>, Vec<Scalar>), PceError> {
        let (to, from) = sync_channel::<Batch>(QUEUE);
        let (back, spare) = channel::<Batch>();
        std::thread::scope(|s| {
            let encoder = if threaded {
                std::thread::Builder::new()
                    .name("pce-encode".into())
                    .spawn_scoped(s, move || encode_batches(Encoder::new(hint, options), &from, &back))
            } else {
                Err(std::io::Error::other("asked to encode inline"))
            };
            let (sink, encoder) = match encoder {
                Ok(h) => (Sink::Thread { to, spare }, Some(h)),
                // No thread to be had: encode here, as synthesis goes.
                Err(_) => (Sink::Inline(Box::new(Encoder::new(hint, options))), None),
            };
            let mut rec = Recorder {
                book: Book::new(hint, 0),
                fingerprint: FINGERPRINT_SEED,
                batch: Batch::default(),
                sink,
            };
            let done = circuit.synthesize(&mut rec);
            rec.flush();
            let Recorder { book, fingerprint, sink, .. } = rec;
            let enc = match (sink, encoder) {
                (Sink::Inline(enc), _) => *enc,
                (Sink::Thread { to, .. }, Some(h)) => {
                    drop(to);
                    h.join().map_err(|_| PceError::Invalid("the PCE encoder thread panicked"))?
                }
                (Sink::Thread { .. }, None) => {
                    return Err(PceError::Invalid("the PCE encoder thread is missing"))
                }
            };
            done?;
            let shape = book.shape();
            let pce = enc.finish(shape, fingerprint)?;
            Ok((pce, book.inputs, book.aux))
        })
    }

    /// Hands the batch under way to the encoder.
    fn flush(&mut self) {
        if self.batch.ends.is_empty() {
            return;
        }
        match &mut self.sink {
            Sink::Inline(enc) => {
                self.batch.encode_into(enc);
                self.batch.clear();
            }
            Sink::Thread { to, spare } => {
                let mut next = spare.try_recv().unwrap_or_default();
                next.clear();
                let full = std::mem::replace(&mut self.batch, next);
                // A send fails only when the encoder is gone (it panicked): the join reports that.
                let _ = to.send(full);
            }
        }
    }

    /// Queues one constraint's raw terms.
    #[inline]
    fn row(&mut self, a: &[Term], b: &[Term], c: &[Term]) {
        self.book.enforced();
        self.fingerprint = mix(self.fingerprint, EV_ENFORCE);
        for terms in [a, b, c] {
            self.batch.terms.extend(terms.iter().map(|&(var, coeff)| (raw_col(var), coeff)));
            self.batch.ends.push(self.batch.terms.len() as u32);
        }
        if self.batch.ends.len() >= 3 * BATCH_ROWS {
            self.flush();
        }
    }
}

/// The encoder's loop: every batch in order, each sent back for reuse; the encoder when synthesis ends.
fn encode_batches(mut enc: Encoder, from: &Receiver<Batch>, back: &Sender<Batch>) -> Encoder {
    for batch in from {
        batch.encode_into(&mut enc);
        let _ = back.send(batch);
    }
    enc
}

/// A variable's raw column.
#[inline]
pub(super) fn raw_col(var: Variable) -> u32 {
    match var.0 {
        Index::Aux(j) => j as u32,
        Index::Input(i) => INPUT_TAG | i as u32,
    }
}

impl ConstraintSystem for Recorder {
    type Store = SmallStore;

    fn alloc(&mut self, value: Scalar) -> Variable {
        self.fingerprint = mix(self.fingerprint, EV_ALLOC);
        self.book.alloc(value)
    }

    fn alloc_input(&mut self, value: Scalar) -> Variable {
        self.fingerprint = mix(self.fingerprint, EV_INPUT);
        self.book.alloc_input(value)
    }

    fn enforce<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: FnOnce(Lc<Self>) -> Lc<Self>,
        B: FnOnce(Lc<Self>) -> Lc<Self>,
        C: FnOnce(Lc<Self>) -> Lc<Self>,
    {
        let (a, b, c) =
            (a(LinearCombination::zero()), b(LinearCombination::zero()), c(LinearCombination::zero()));
        self.row(a.terms(), b.terms(), c.terms());
    }

    /// A foreign circuit's terms queued where they are (building a combination from them first was a third
    /// of recording the real C2: docs/PERF.md).
    fn enforce_slices(&mut self, a: &[Term], b: &[Term], c: &[Term]) {
        self.row(a, b, c);
    }

    fn value(&self, var: Variable) -> Scalar {
        self.book.value(var)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cs::test_circuit::Mixed;

    /// The encoder on its own thread (batches handed over, several of them) and inline give the same record
    /// and witness, with either record option.
    #[test]
    fn threaded_and_inline_encoding_record_the_same() {
        let c = Mixed(3 * BATCH_ROWS + 17);
        for c_from_products in [false, true] {
            let options = RecordOptions { c_from_products };
            let threaded = Recorder::run_on(&c, None, options, true).expect("threaded");
            let inline = Recorder::run_on(&c, None, options, false).expect("inline");
            assert_eq!(threaded, inline);
            assert_eq!(threaded.0.shape().constraints, 3 * BATCH_ROWS + 17);
        }
    }
}
