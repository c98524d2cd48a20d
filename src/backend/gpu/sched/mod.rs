//! The overlap schemes of a lane, each whole in one file and each behind its toggle: `hpipe` (the next
//! circuit staged under this one's msm_h), `tailseq` (a call's tails as one launch sequence), `g2d` (B_G2's
//! batch addition and MSM on the device), `msm2s` (an MSM's passes on two streams).

pub mod g2d;
pub mod hpipe;
pub mod msm2s;
pub mod tailseq;
