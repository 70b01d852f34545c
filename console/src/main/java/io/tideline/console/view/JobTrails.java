package io.tideline.console.view;

import io.tideline.platform.explain.DecisionTrail;
import io.tideline.platform.explain.Fields;
import io.tideline.platform.topics.TopicCatalogue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The console's {@code tideline explain}: every record of the trail topics indexed by the jobs it
 * names ({@link DecisionTrail#jobsNamed}), capacity reservations by service, so a job's page is
 * {@link DecisionTrail#of} over its own records only — the same trail, in the same order, with the
 * same summaries and rule traces as the CLI prints.
 */
public final class JobTrails {

  private final Map<String, List<DecisionTrail.Entry>> byJob = new HashMap<>();
  private final Map<String, List<DecisionTrail.Entry>> reservationsByService = new HashMap<>();

  /** Whether the console keeps records of that topic for the trails. */
  public static boolean tracks(String topic) {
    return DecisionTrail.TOPICS.contains(topic);
  }

  public void accept(DecisionTrail.Entry e) {
    if (e.topic().equals(TopicCatalogue.CAPACITY_RESERVATIONS)) {
      String service = Fields.text(e.value(), "serviceId");
      if (service != null) {
        reservationsByService.computeIfAbsent(service, k -> new ArrayList<>()).add(e);
      }
      return;
    }
    for (String job : DecisionTrail.jobsNamed(e)) {
      byJob.computeIfAbsent(job, k -> new ArrayList<>()).add(e);
    }
  }

  /** The job's trail, oldest first; empty for a job no record names. */
  public List<DecisionTrail.Line> trail(String jobId) {
    List<DecisionTrail.Entry> mine = byJob.get(jobId);
    if (mine == null) {
      return List.of();
    }
    List<DecisionTrail.Entry> all = new ArrayList<>(mine);
    for (DecisionTrail.Entry e : mine) {
      if (e.topic().equals(TopicCatalogue.JOBS_SUBMITTED)) {
        String service = Fields.text(e.value(), "serviceId");
        if (service != null) {
          all.addAll(reservationsByService.getOrDefault(service, List.of()));
        }
        break;
      }
    }
    return DecisionTrail.of(jobId, all);
  }

  /** How many jobs have a trail. */
  public int jobs() {
    return byJob.size();
  }
}
