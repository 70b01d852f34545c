package io.tideline.platform.topics;

import io.quarkus.runtime.StartupEvent;
import io.smallrye.common.annotation.Identifier;
import io.tideline.platform.TidelineConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.jboss.logging.Logger;

/**
 * Creates the catalogued topics that are missing, when {@code tideline.topics.auto-create} is on
 * (tests and ad-hoc local runs; {@code ./tideline up} creates them itself and production uses
 * Strimzi {@code KafkaTopic} resources from {@code deploy/}).
 */
@ApplicationScoped
public class TopicProvisioner {

  private static final Logger LOG = Logger.getLogger(TopicProvisioner.class);

  void onStart(@Observes StartupEvent ev, TidelineConfig config,
      @Identifier("default-kafka-broker") Map<String, Object> kafka) throws Exception {
    if (!config.topics().autoCreate()) {
      return;
    }
    try (Admin admin = Admin.create(kafka)) {
      Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      List<NewTopic> missing = new ArrayList<>();
      for (TopicSpec t : TopicCatalogue.all()) {
        if (!existing.contains(t.name())) {
          missing.add(new NewTopic(t.name(), t.partitions(), config.topics().replicationFactor())
              .configs(t.configs()));
        }
      }
      if (!missing.isEmpty()) {
        try {
          admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
            throw e;
          }
        }
        LOG.infof("created %d topics", missing.size());
      }
    }
  }
}
