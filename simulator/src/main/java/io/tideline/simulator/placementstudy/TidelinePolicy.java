package io.tideline.simulator.placementstudy;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.model.JobRequest;
import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.placement.PlacementDecision;
import io.tideline.core.placement.Placer;
import java.time.Instant;

/** Tideline's core {@link Placer} deciding, one pod = one 1-worker gang; the study only applies. */
public final class TidelinePolicy implements StudyPolicy {

  private final String name;
  private final Placer placer;

  public TidelinePolicy(String name, PlacementConfig config) {
    this.name = name;
    this.placer = new Placer(config);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public ClusterSnapshot place(ClusterSnapshot snapshot, JobRequest pod) {
    PlacementDecision d = placer.decide(Instant.EPOCH, snapshot, pod);
    return d.placed() ? Placer.apply(snapshot, pod, d) : null;
  }
}
