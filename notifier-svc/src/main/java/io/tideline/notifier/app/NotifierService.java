package io.tideline.notifier.app;

import io.quarkus.mailer.Mailer;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.common.annotation.Identifier;
import io.tideline.notifier.channel.EmailSender;
import io.tideline.notifier.channel.Sender;
import io.tideline.notifier.channel.SlackWebhookSender;
import io.tideline.notifier.delivery.Channel;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.intake.IntakeConfig;
import io.tideline.platform.validation.InputBounds;
import io.tideline.platform.serde.AvroSerdes;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import java.util.EnumMap;
import java.util.Map;

/**
 * Owns the running {@link NotifierEngine}: starts it with the application (after the topics are
 * provisioned) and can restart it, e.g. with another consumer group for an audit replay.
 */
@ApplicationScoped
public class NotifierService {

  private final NotifierConfig config;
  private final Map<String, Object> kafka;
  private final AvroSerdes serdes;
  private final NoticeRenderer renderer;
  private final DeadLetters deadLetters;
  private final NotifierMeters meters;
  private final InputBounds bounds;
  private final Map<Channel, Sender> senders = new EnumMap<>(Channel.class);
  private volatile NotifierEngine engine;

  public NotifierService(NotifierConfig config,
      @Identifier("default-kafka-broker") Map<String, Object> kafka, AvroSerdes serdes,
      NoticeRenderer renderer, DeadLetters deadLetters, NotifierMeters meters, Mailer mailer,
      IntakeConfig intake) {
    this.bounds = intake.bounds();
    this.config = config;
    this.kafka = kafka;
    this.serdes = serdes;
    this.renderer = renderer;
    this.deadLetters = deadLetters;
    this.meters = meters;
    senders.put(Channel.SLACK, new SlackWebhookSender(config.slack().timeout()));
    senders.put(Channel.EMAIL, new EmailSender(mailer));
  }

  // Runs after the platform's TopicProvisioner (default priority), so the topics exist.
  void onStart(@Observes @Priority(Interceptor.Priority.APPLICATION + 900) StartupEvent ev) {
    if (config.autoStart()) {
      restart(config.groupId());
    }
  }

  /** Stops the current engine (if any) and starts a fresh one consuming as {@code groupId}. */
  public synchronized NotifierEngine restart(String groupId) {
    stop();
    NotifierEngine e = new NotifierEngine(config, groupId, kafka,
        serdes.valueSerdeConfig(),
        new Directory(config), renderer, senders, deadLetters, meters, bounds);
    e.start();
    engine = e;
    return e;
  }

  /** The notifier's configuration. */
  public NotifierConfig config() {
    return config;
  }

  /** The input bounds in force ({@code tideline.intake.*}). */
  public InputBounds bounds() {
    return bounds;
  }

  /** The running engine, or null. */
  public NotifierEngine engine() {
    return engine;
  }

  /** Stops the running engine. */
  @PreDestroy
  public synchronized void stop() {
    if (engine != null) {
      engine.close();
      engine = null;
    }
  }
}
