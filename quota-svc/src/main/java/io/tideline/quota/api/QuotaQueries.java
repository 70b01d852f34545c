package io.tideline.quota.api;

import io.tideline.core.quota.OnlineFloors;
import io.tideline.core.quota.QuotaDefinition;
import io.tideline.core.quota.QuotaLedger;
import io.tideline.quota.config.QuotaServiceConfig;
import io.tideline.quota.definition.QuotaDocuments;
import io.tideline.quota.stream.BillingDay;
import io.tideline.quota.stream.JobEntry;
import io.tideline.quota.stream.Json;
import io.tideline.quota.stream.LedgerSnapshot;
import io.tideline.quota.stream.QuotaTopology;
import io.tideline.quota.stream.QuotaViews;
import io.tideline.quota.stream.VerdictView;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads the single writer's stores (Kafka Streams interactive queries). One instance holds the
 * cluster's partition; in a multi-instance deployment the others would forward to it (not needed
 * while one instance serves a cluster).
 */
@ApplicationScoped
public class QuotaQueries {

  private final KafkaStreams streams;
  private final QuotaServiceConfig config;

  public QuotaQueries(KafkaStreams streams, QuotaServiceConfig config) {
    this.streams = streams;
    this.config = config;
  }

  /** The definition in force (Q5 floors applied), ledger and logical now, as last stored. */
  public record Snapshot(QuotaDefinition definition, QuotaLedger ledger, Instant now,
      String policyVersion) {}

  public Optional<Snapshot> snapshot() {
    ReadOnlyKeyValueStore<String, String> s = store(QuotaTopology.STATE_STORE);
    String def = s.get("definition");
    if (def == null) {
      return Optional.empty();
    }
    try {
      var entry = Json.MAPPER.readTree(def);
      QuotaDocuments.Parsed parsed = QuotaDocuments.parse(entry.get("text").asText(), null);
      LedgerSnapshot snap = Json.read(s.get("ledger"), LedgerSnapshot.class);
      QuotaLedger ledger = snap == null ? QuotaLedger.empty(parsed.fleetGpus(),
          config.quota().fairShareHalfLife()) : snap.restore();
      String now = s.get("now");
      @SuppressWarnings("unchecked")
      Map<String, Double> peaks = Json.read(s.get("peaks"), Map.class);
      // The floors in force, as the writer computes them: the declared ones with Q5 applied.
      QuotaDefinition inForce = new OnlineFloors(config.quota()).apply(parsed.definition(),
          ledger.fleetGpus(), peaks == null ? Map.of() : peaks).definition();
      return Optional.of(new Snapshot(inForce, ledger,
          now == null ? Instant.EPOCH : Instant.parse(now),
          config.quota().rulesVersion() + "/" + parsed.definition().version()));
    } catch (Exception e) {
      throw new IllegalStateException("unreadable quota state: " + e.getMessage(), e);
    }
  }

  public Optional<QuotaViews.TreeView> tree() {
    return snapshot().map(s -> QuotaViews.tree(s.definition(), s.ledger(), s.now(),
        s.policyVersion()));
  }

  public Optional<QuotaViews.TenantView> tenant(String tenant) {
    return snapshot().flatMap(s -> QuotaViews.tenant(s.definition(), s.ledger(), s.now(),
        s.policyVersion(), tenant));
  }

  public Optional<VerdictView> verdict(String jobId) {
    JobEntry j = Json.read(store(QuotaTopology.JOBS_STORE).get(jobId), JobEntry.class);
    return Optional.ofNullable(j).map(JobEntry::verdict);
  }

  public Optional<BillingDay> billing(String tenant, String day) {
    return Optional.ofNullable(Json.read(store(QuotaTopology.BILLING_STORE).get(tenant + "/" + day),
        BillingDay.class));
  }

  private ReadOnlyKeyValueStore<String, String> store(String name) {
    return streams.store(StoreQueryParameters.fromNameAndType(name,
        QueryableStoreTypes.<String, String>keyValueStore()));
  }
}
