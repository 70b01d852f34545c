package io.tideline.core.slots;

import java.time.LocalTime;
import java.util.Arrays;

/** Builds a usage profile on a slot grid by setting levels over local time ranges. */
final class ProfileBuilder {

  private final SlotGrid grid;
  private final double[] profile;

  ProfileBuilder(SlotGrid grid, double base) {
    this.grid = grid;
    this.profile = new double[grid.slotsPerDay()];
    Arrays.fill(profile, base);
  }

  /** Sets usage {@code level} from {@code from} (inclusive) to {@code to} (exclusive). */
  ProfileBuilder level(String from, String to, double level) {
    int start = slot(LocalTime.parse(from));
    int end = "24:00".equals(to) ? profile.length : slot(LocalTime.parse(to));
    for (int s = start; s < end; s++) {
      // a small deterministic ripple so levels are not perfectly flat
      profile[s] = level + 0.1 * ((s * 7) % 5);
    }
    return this;
  }

  double[] build() {
    return profile.clone();
  }

  private int slot(LocalTime time) {
    return (int) (time.toSecondOfDay() / grid.slotLength().toSeconds());
  }
}
