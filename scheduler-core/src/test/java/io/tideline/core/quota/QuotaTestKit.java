package io.tideline.core.quota;

import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.model.WorkloadClass.Lane;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Builders for quota scenarios: a small standard organisation and fluent jobs. */
public final class QuotaTestKit {

  public static final Instant T0 = Instant.parse("2026-11-02T14:00:00Z");
  static final double NO_CAP = Double.POSITIVE_INFINITY;

  static final String SEARCH_TRAINING = "acme/search/ranking/training";
  static final String SEARCH_INFERENCE = "acme/search/ranking/inference";
  static final String ADS_TRAINING = "acme/ads/ctr/training";
  static final String ADS_BATCH = "acme/ads/ctr/batch";

  private QuotaTestKit() {}

  /**
   * The standard organisation on a 48-GPU fleet: queue floors 12 + 8 + 8 + 4 = 32, so the shared pool
   * is 16. Search may borrow 16 (ranking 12, its training queue 8, inference 8); ads may borrow 10.
   * Search's online inference may preempt; ads has no preemption right. Inference floors are not
   * lent.
   */
  static QuotaDefinition standard() {
    return QuotaDefinition.of("def-7",
        QuotaNode.organisation("acme", 40, NO_CAP),
        QuotaNode.businessLine("acme/search", 20, 16, 20)
            .withGrants(PreemptionGrant.ONLINE_INFERENCE, PreemptionGrant.CRITICAL_JOBS),
        QuotaNode.team("acme/search/ranking", 20, 12, 20),
        QuotaNode.queue(SEARCH_TRAINING, Lane.TRAINING, 8, 8, 8),
        QuotaNode.queue(SEARCH_INFERENCE, Lane.INFERENCE, 12, 8, 0),
        QuotaNode.businessLine("acme/ads", 12, 10, 12),
        QuotaNode.team("acme/ads/ctr", 12, 10, 12),
        QuotaNode.queue(ADS_TRAINING, Lane.TRAINING, 8, 10, 8),
        QuotaNode.queue(ADS_BATCH, Lane.BATCH, 4, 4, 4));
  }

  static QuotaLedger ledger() {
    return QuotaLedger.empty(48, QuotaConfig.DEFAULTS.fairShareHalfLife());
  }

  public static JobBuilder job(String id) {
    return new JobBuilder(id);
  }

  /** A search/ranking training job by default: preemptible, no preemption right, 1 GPU. */
  public static final class JobBuilder {
    private final String id;
    private String tenant = "search";
    private String team = "ranking";
    private WorkloadClass workloadClass = WorkloadClass.TRAINING;
    private boolean critical;
    private boolean preemptible = true;
    private boolean preemptionRight;
    private String service;
    private int gpus = 1;
    private double share = 1.0;
    private Instant submittedAt = T0;
    private long expectedSeconds = 3600;
    private List<String> models = List.of();

    JobBuilder(String id) {
      this.id = id;
    }

    public JobBuilder ads() {
      tenant = "ads";
      team = "ctr";
      return this;
    }

    public JobBuilder tenant(String t, String tm) {
      tenant = t;
      team = tm;
      return this;
    }

    public JobBuilder online(String serviceId) {
      workloadClass = WorkloadClass.ONLINE_INFERENCE;
      service = serviceId;
      return this;
    }

    public JobBuilder batch() {
      workloadClass = WorkloadClass.BATCH_INFERENCE;
      return this;
    }

    public JobBuilder critical() {
      critical = true;
      return this;
    }

    public JobBuilder nonPreemptible() {
      preemptible = false;
      return this;
    }

    public JobBuilder wantsPreemptionRight() {
      preemptionRight = true;
      return this;
    }

    public JobBuilder gpus(int n) {
      gpus = n;
      return this;
    }

    public JobBuilder share(double s) {
      gpus = 1;
      share = s;
      return this;
    }

    public JobBuilder submittedAt(Instant t) {
      submittedAt = t;
      return this;
    }

    public JobBuilder submittedAfter(Duration d) {
      submittedAt = T0.plus(d);
      return this;
    }

    public JobBuilder expectedSeconds(long s) {
      expectedSeconds = s;
      return this;
    }

    public JobBuilder models(String... m) {
      models = List.of(m);
      return this;
    }

    public JobRequest build() {
      return new JobRequest(id, tenant, team, "alice", workloadClass, critical, preemptible,
          preemptionRight, service, gpus, share, Math.max(1, Math.min(gpus, 8)), 0, models, submittedAt,
          null, expectedSeconds, null, 0);
    }
  }
}
