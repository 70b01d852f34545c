package io.tideline.cli.audit;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.streams.Topology;

/**
 * One single-writer ledger an audit can replay: the retained log of its inputs, the topics its
 * decisions go to, and the topology factory of the service itself (the same graph, the same
 * decision code): placement, quota and preemption ({@link ReplayTargets}).
 *
 * @param name short name in the summary ({@code placement}, {@code quota}, {@code preemption})
 * @param logTopic the ledger's input log (key = cluster, value {@code LedgerInput})
 * @param decisionTopics the outputs compared with the recorded ones
 * @param topology the service's topology factory, given the registry serde settings
 */
public record ReplayTarget(String name, String logTopic, List<String> decisionTopics,
    Function<Map<String, Object>, Topology> topology) {}
