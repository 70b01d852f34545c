package io.tideline.console.view;

import io.tideline.events.BillingUsage;
import io.tideline.events.CapacityReservation;
import io.tideline.events.Eviction;
import io.tideline.events.FragmentationReport;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.Notice;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.QueuePosition;
import io.tideline.events.QuotaState;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SlotForecast;
import io.tideline.platform.explain.DecisionTrail;
import io.tideline.platform.topics.TopicCatalogue;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.ObjLongConsumer;

/**
 * Everything the console shows, folded from the records it reads: one {@link #accept} per record,
 * in each partition's order, dispatched by topic to the five views and the job trails. Pure and
 * single-threaded (the caller serialises access); {@link #version()} moves with every record, so
 * the live stream knows when there is something new.
 */
public final class ConsoleState {

  /** The topics the console reads: the views' inputs and the trails' topics. */
  public static final List<String> TOPICS = concat(List.of(
      TopicCatalogue.CLUSTER_INVENTORY, TopicCatalogue.FORECAST_SLOTS,
      TopicCatalogue.QUOTA_STATE, TopicCatalogue.BILLING_USAGE,
      TopicCatalogue.PLACEMENT_FRAGMENTATION), DecisionTrail.TOPICS);

  private final TideView tide;
  private final QueueView queues = new QueueView();
  private final PreemptionView preemptions = new PreemptionView();
  private final QuotaView quota = new QuotaView();
  private final FragmentationView fragmentation;
  private final JobTrails trails = new JobTrails();
  private long version;
  private long undecodable;

  /**
   * @param bucket width of one point of the time series
   * @param window how far back the time series reach
   * @param onlineWait told each online job's submission-to-placement wait (milliseconds)
   */
  public ConsoleState(Duration bucket, Duration window, ObjLongConsumer<String> onlineWait) {
    this.tide = new TideView(bucket, window, onlineWait);
    this.fragmentation = new FragmentationView(bucket, window);
  }

  /**
   * One record: its topic, key, timestamp and decoded value ({@code null}: a tombstone), or the
   * reason it could not be decoded ({@code error}; such a record is counted and shown, not folded).
   */
  public void accept(String topic, String key, long timestamp, Object value, String error) {
    version++;
    if (error != null) {
      undecodable++;
    } else {
      fold(topic, key, value);
    }
    if (JobTrails.tracks(topic)) {
      trails.accept(new DecisionTrail.Entry(topic, key, timestamp, value, error));
    }
  }

  private void fold(String topic, String key, Object value) {
    if (value instanceof NodeInventory n) {
      tide.inventory(n);
      fragmentation.inventory(n);
    } else if (value instanceof JobSubmitted j) {
      tide.submitted(j);
      queues.submitted(j);
    } else if (value instanceof PlacementDecision d) {
      tide.placement(d);
    } else if (value instanceof JobLifecycle l) {
      tide.lifecycle(l);
    } else if (value instanceof Eviction e) {
      tide.eviction(e);
      preemptions.eviction(e);
    } else if (value instanceof CapacityReservation r) {
      tide.reservation(r);
    } else if (value instanceof SlotForecast f) {
      tide.forecast(f);
    } else if (value instanceof QuotaVerdict v) {
      queues.verdict(v);
    } else if (value instanceof PreemptionDecision d) {
      preemptions.decision(d);
    } else if (value instanceof Notice n) {
      preemptions.notice(n);
    } else if (value instanceof FragmentationReport r) {
      fragmentation.report(r);
    } else if (value instanceof BillingUsage u) {
      quota.billing(u);
    } else if (value instanceof QuotaState s) {
      quota.state(key, s);
    } else if (value instanceof QueuePosition p) {
      queues.position(key, p);
    } else if (value == null && TopicCatalogue.PLACEMENT_QUEUE.equals(topic)) {
      queues.position(key, null);
    } else if (value == null && TopicCatalogue.QUOTA_STATE.equals(topic)) {
      quota.state(key, null);
    }
  }

  public long version() {
    return version;
  }

  /** Records that could not be decoded (counted, shown on every page, never folded). */
  public long undecodable() {
    return undecodable;
  }

  public TideView tide() {
    return tide;
  }

  public QueueView queues() {
    return queues;
  }

  public PreemptionView preemptions() {
    return preemptions;
  }

  public QuotaView quota() {
    return quota;
  }

  public FragmentationView fragmentation() {
    return fragmentation;
  }

  public JobTrails trails() {
    return trails;
  }

  private static List<String> concat(List<String> a, List<String> b) {
    Set<String> s = new LinkedHashSet<>(a);
    s.addAll(b);
    return List.copyOf(s);
  }
}
