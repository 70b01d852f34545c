package io.tideline.simulator;

import io.tideline.platform.kernel.HostRecord;
import io.tideline.platform.kernel.HostResult;
import io.tideline.platform.kernel.KernelHost;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The in-process transport: the services' kernel hosts — the very code their single writers run —
 * on one queue of records. A record goes to every host that reads its topic; what a host publishes
 * goes back on the queue; {@link #settle} delivers until the queue is empty. Records are the
 * contracts' Avro records, exactly what a Kafka consumer would decode, so the only thing this
 * replaces is the broker.
 */
public final class InProcessTransport implements Transport {

  /** One service: its host, the topics it reads, its state. */
  private static final class Service<S> {
    final String name;
    final KernelHost<S> host;
    final Set<String> topics;
    S state;
    long refused;
    final List<String> reasons = new ArrayList<>();

    Service(String name, KernelHost<S> host, Set<String> topics) {
      this.name = name;
      this.host = host;
      this.topics = topics;
      this.state = host.empty();
    }

    List<HostRecord> offer(HostRecord r) {
      HostResult<S> res = host.offer(host.clock(state), state, r.topic(), r.value(), null);
      state = res.state();
      refused += res.refused().size();
      res.refused().forEach(x -> reasons.add(r.topic() + ": " + x.reason()));
      return res.records();
    }
  }

  private final List<Service<?>> services = new ArrayList<>();
  private final Deque<HostRecord> queue = new ArrayDeque<>();
  private final List<HostRecord> observed = new ArrayList<>();
  private final Set<String> observedTopics = Set.copyOf(World.observed());
  private boolean cascaded;
  private java.util.function.Consumer<HostRecord> tap = r -> { };
  private final Map<String, Long> published = new LinkedHashMap<>();

  /** Adds a service reading {@code topics} through {@code host}. */
  public <S> InProcessTransport with(String name, KernelHost<S> host, Set<String> topics) {
    services.add(new Service<>(name, host, topics));
    return this;
  }

  @Override
  public void publish(List<World.Timed> records) {
    records.forEach(r -> queue.add(r.record()));
  }

  @Override
  public void settle() {
    while (!queue.isEmpty()) {
      HostRecord r = queue.poll();
      for (Service<?> s : services) {
        if (r.value() != null && s.topics.contains(r.topic())) {
          for (HostRecord out : s.offer(r)) {
            queue.add(out);
            tap.accept(out);
            published.merge(out.topic(), 1L, Long::sum);
            if (observedTopics.contains(out.topic())) {
              observed.add(out);
            }
            if (Twin.CASCADE.contains(out.topic())) {
              cascaded = true;
            }
          }
        }
      }
    }
  }

  @Override
  public List<HostRecord> collect() {
    List<HostRecord> out = Transport.canonical(observed);
    observed.clear();
    return out;
  }

  @Override
  public boolean cascaded() {
    boolean c = cascaded;
    cascaded = false;
    return c;
  }

  /** Sees every record a service publishes (tests read topics the world does not). */
  public InProcessTransport tap(java.util.function.Consumer<HostRecord> sink) {
    this.tap = sink;
    return this;
  }

  /** The current state of service {@code name} (tests and the twin's probes read it). */
  @SuppressWarnings("unchecked")
  public <S> S state(String name) {
    for (Service<?> s : services) {
      if (s.name.equals(name)) {
        return (S) s.state;
      }
    }
    throw new IllegalArgumentException("no service " + name);
  }

  /** Records each topic received from the services, for the run's report. */
  public Map<String, Long> published() {
    return published;
  }

  /** Inputs each service refused (dead letters). */
  public Map<String, Long> refused() {
    Map<String, Long> out = new LinkedHashMap<>();
    services.forEach(s -> out.put(s.name, s.refused));
    return out;
  }

  /** Why each service refused what it refused (the reasons its dead letters would carry). */
  public Map<String, List<String>> refusals() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    services.forEach(s -> out.put(s.name, List.copyOf(s.reasons)));
    return out;
  }

  @Override
  public void close() {
    // nothing held
  }
}
