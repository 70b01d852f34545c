package io.tideline.core.quota.bench;

import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.model.WorkloadClass.Lane;
import io.tideline.core.pricing.ChargeBasis;
import io.tideline.core.pricing.DailySlotSchedule;
import io.tideline.core.pricing.PricingConfig;
import io.tideline.core.pricing.UsageMeter;
import io.tideline.core.pricing.UsageRecord;
import io.tideline.core.quota.AdmissionPass;
import io.tideline.core.quota.AdmissionVerdict;
import io.tideline.core.quota.Allocation;
import io.tideline.core.quota.QuotaAdmission;
import io.tideline.core.quota.QuotaConfig;
import io.tideline.core.quota.QuotaDefinition;
import io.tideline.core.quota.QuotaLedger;
import io.tideline.core.quota.QuotaNode;
import io.tideline.core.quota.WaitingJob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of quota decisions at a realistic size: 20 business lines × 5 teams × 3 lanes = 300 queues on
 * a 4,096-GPU fleet with 2,000 running jobs; one admission, a pass over 100 waiting jobs, and the
 * metering of a 3-day run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(time = 2)
@Measurement(time = 2)
public class QuotaAdmissionBenchmark {

  static final Instant T0 = Instant.parse("2026-11-02T14:00:00Z");

  QuotaDefinition def;
  QuotaLedger ledger;
  JobRequest borrower;
  List<WaitingJob> waiting;
  final QuotaAdmission admission = new QuotaAdmission(QuotaConfig.DEFAULTS);
  final AdmissionPass pass = new AdmissionPass(QuotaConfig.DEFAULTS);
  final UsageMeter meter = new UsageMeter(PricingConfig.DEFAULTS);

  @Setup
  public void setUp() {
    List<QuotaNode> nodes = new ArrayList<>();
    nodes.add(QuotaNode.organisation("org", 3000, Double.POSITIVE_INFINITY));
    for (int b = 0; b < 20; b++) {
      String bl = "org/bl" + b;
      nodes.add(QuotaNode.businessLine(bl, 150, 200, 150));
      for (int t = 0; t < 5; t++) {
        String team = bl + "/team" + t;
        nodes.add(QuotaNode.team(team, 30, 60, 30));
        nodes.add(QuotaNode.queue(team + "/inference", Lane.INFERENCE, 12, 16, 0));
        nodes.add(QuotaNode.queue(team + "/training", Lane.TRAINING, 12, 40, 12));
        nodes.add(QuotaNode.queue(team + "/batch", Lane.BATCH, 6, 8, 6));
      }
    }
    def = QuotaDefinition.of("bench", nodes);
    QuotaLedger l = QuotaLedger.empty(4096, QuotaConfig.DEFAULTS.fairShareHalfLife());
    for (int i = 0; i < 2000; i++) {
      String queue = "org/bl" + (i % 20) + "/team" + (i / 20 % 5) + "/training";
      l = l.admit(new Allocation("run-" + i, queue, i % 3 == 0 ? 0 : 0.5, i % 3 == 0 ? 0.5 : 0,
          T0.minusSeconds(60L * i)));
    }
    ledger = l;
    borrower = job("new", 3, 2, 24);
    waiting = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      waiting.add(WaitingJob.fresh(job("w" + i, i % 20, i / 20 % 5, 1 + i % 8)));
    }
  }

  static JobRequest job(String id, int bl, int team, int gpus) {
    return new JobRequest(id, "bl" + bl, "team" + team, "u", WorkloadClass.TRAINING, false, true,
        false, null, gpus, 1.0, 1, 0, List.of(), T0, null, 3600, null, 0);
  }

  @Benchmark
  public AdmissionVerdict admitOneBorrower() {
    return admission.decide(borrower, null, def, ledger, T0);
  }

  @Benchmark
  public AdmissionPass.Result passOverHundredWaitingJobs() {
    return pass.run(waiting, def, ledger, T0);
  }

  @Benchmark
  public List<UsageRecord> meterAThreeDayRun() {
    return meter.meter("t", "j", "H100", 8, ChargeBasis.ON_DEMAND, T0,
        T0.plusSeconds(3 * 86_400), DailySlotSchedule.EXAMPLE);
  }
}
