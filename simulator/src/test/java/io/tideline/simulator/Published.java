package io.tideline.simulator;

import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.platform.kernel.HostRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** What the schedulers of a hand-off scenario published, read back by record type. */
final class Published implements Consumer<HostRecord> {

  private final List<HostRecord> seen = new ArrayList<>();

  @Override
  public void accept(HostRecord r) {
    seen.add(r);
  }

  /** Every published record of {@code type}, in the order published. */
  <T> List<T> of(Class<T> type) {
    List<T> out = new ArrayList<>();
    for (HostRecord r : seen) {
      if (type.isInstance(r.value())) {
        out.add(type.cast(r.value()));
      }
    }
    return out;
  }

  /** The outcomes placement decided for {@code job}, in order. */
  List<PlacementOutcome> outcomes(String job) {
    return of(PlacementDecision.class).stream().filter(d -> d.getJobId().equals(job))
        .map(PlacementDecision::getOutcome).toList();
  }
}
