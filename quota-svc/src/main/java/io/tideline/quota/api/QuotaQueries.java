package io.tideline.quota.api;

import io.tideline.core.quota.kernel.QuotaKernelState;
import io.tideline.core.quota.kernel.QuotaViews;
import io.tideline.platform.kernel.StoreRecords;
import io.tideline.platform.kernel.quota.QuotaHost;
import io.tideline.platform.kernel.quota.QuotaStore;
import io.tideline.quota.config.QuotaPolicy;
import io.tideline.quota.config.QuotaServiceConfig;
import io.tideline.quota.stream.QuotaStores;
import io.tideline.quota.stream.QuotaTopology;
import io.tideline.state.BillingDayRecord;
import io.tideline.state.QuotaJobRecord;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads the single writer's typed stores (Kafka Streams interactive queries) and answers with the
 * core's read models ({@link QuotaViews}), the ones the kernel publishes {@code quota.state} from.
 * One instance holds the cluster's partition; in a multi-instance deployment the others would
 * forward to it (not needed while one instance serves a cluster).
 */
@ApplicationScoped
public class QuotaQueries {

  private final KafkaStreams streams;
  private final QuotaServiceConfig config;
  private final QuotaHost host;

  public QuotaQueries(KafkaStreams streams, QuotaServiceConfig config, QuotaPolicy policy) {
    this.streams = streams;
    this.config = config;
    this.host = new QuotaHost(policy.kernelConfig());
  }

  /** The kernel state as last stored (without its samples and waiting inputs). */
  private QuotaKernelState state() {
    return QuotaStores.read(host, this::store, null, false);
  }

  public Optional<QuotaViews.TreeView> tree() {
    return QuotaViews.tree(state(), config.quota().rulesVersion());
  }

  public Optional<QuotaViews.TenantView> tenant(String tenant) {
    return QuotaViews.tenant(state(), config.quota().rulesVersion(), tenant);
  }

  public Optional<VerdictView> verdict(String jobId) {
    byte[] b = store(QuotaTopology.JOBS_STORE).get(jobId);
    if (b == null) {
      return Optional.empty();
    }
    QuotaJobRecord r = StoreRecords.decode(QuotaJobRecord.class, b);
    return r.getVerdict() == null ? Optional.empty()
        : Optional.of(VerdictView.of(QuotaStore.verdict(r.getVerdict()), r.getRequest().getTenant()));
  }

  public Optional<BillingView> billing(String tenant, String day) {
    byte[] b = store(QuotaTopology.BILLING_STORE).get(tenant + "/" + day);
    return b == null ? Optional.empty()
        : Optional.of(BillingView.of(QuotaStore.billing(StoreRecords.decode(
            BillingDayRecord.class, b))));
  }

  private ReadOnlyKeyValueStore<String, byte[]> store(String name) {
    return streams.store(StoreQueryParameters.fromNameAndType(name,
        QueryableStoreTypes.<String, byte[]>keyValueStore()));
  }
}
