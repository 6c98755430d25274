// Bounds of the depth-stage parity gates. Each bound sits between the correct arm's
// worst over every geometry and seed (measured, left number) and the tightest
// catalogued mutation it must catch (measured, right number); both are written
// beside it. Measurements: reports/gates/ (per-seed tables) and
// reports/mutations/ (the battery's per-mutation gate logs).
#pragma once
#include "gates/lib/gate_record.h"

namespace music3::gates::depth_bounds {

// Arm vs oracle, final-normed hidden (both rows, every call) and head logits.
inline constexpr UlpBounds kVsOracle{
    /*median*/ 0.5,            // correct worst: PENDING | tightest defect: PENDING
    /*mean*/ 1.0,              // correct worst: PENDING | tightest defect: PENDING
    /*p999*/ 16.0,             // correct worst: PENDING | tightest defect: PENDING
    /*max_conditioned*/ 16.0,  // correct worst: PENDING | tightest defect: PENDING
};

// Device arm vs host arm (the band), same statistics.
inline constexpr UlpBounds kBand{
    /*median*/ 0.5,
    /*mean*/ 1.0,
    /*p999*/ 16.0,
    /*max_conditioned*/ 16.0,
};

}  // namespace music3::gates::depth_bounds
