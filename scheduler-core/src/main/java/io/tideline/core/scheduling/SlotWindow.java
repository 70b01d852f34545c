package io.tideline.core.scheduling;

import io.tideline.core.slots.SlotClass;
import java.time.Instant;
import java.util.Objects;

/**
 * A forecast slot and its class (F4), as placement keeps it for its defragmentation gates.
 *
 * @param start slot start
 * @param end slot end
 * @param slotClass the slot's class
 */
public record SlotWindow(Instant start, Instant end, SlotClass slotClass) {
  public SlotWindow {
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(end, "end");
    Objects.requireNonNull(slotClass, "slotClass");
  }
}
