// The battery's canary: a value that battery_canary_gate pins. The catalogue's
// forced-fail-canary mutation changes it, so that gate must go red; a battery in
// which it does not has a broken patch → build → run → judge chain.
#pragma once

namespace music3::canary {

int canary_value();

}  // namespace music3::canary
