package io.tideline.notifier.app;

import io.tideline.events.NotificationContacts;
import io.tideline.events.NotifyPreference;
import io.tideline.notifier.compose.Lang;
import io.tideline.notifier.compose.NoticeComposer;
import io.tideline.notifier.delivery.Channel;
import io.tideline.notifier.delivery.QuietHours;
import java.time.ZoneId;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-user routing directory (O3): the {@code notify.directory} topic (latest entry per user)
 * over the configured users over the defaults, with the contacts a job was submitted with as the
 * last resort for addresses. Thread-safe: the engine writes, the REST endpoint reads. Entries
 * from the topic have passed the shared input check (channels, zone, quiet hours, webhook
 * scheme); whatever a configured user says wrong is ignored with a warning, never thrown.
 */
public final class Directory {

  private static final org.jboss.logging.Logger LOG =
      org.jboss.logging.Logger.getLogger(Directory.class);

  private final NotifierConfig config;
  private final Map<String, NotifyPreference> entries = new ConcurrentHashMap<>();
  private final Map<String, NotificationContacts> contacts = new ConcurrentHashMap<>();

  public Directory(NotifierConfig config) {
    this.config = config;
  }

  /** Applies a directory record (null = tombstone: back to configuration). */
  public void put(String userId, NotifyPreference p) {
    if (p == null) {
      entries.remove(userId);
    } else {
      entries.put(userId, p);
    }
  }

  /** Remembers the contacts a user gave with a job submission. */
  public void contacts(String userId, NotificationContacts c) {
    if (c != null) {
      contacts.put(userId, c);
    }
  }

  /** Whether the topic has an entry for the user (tests wait on it). */
  public boolean hasEntry(String userId) {
    return entries.containsKey(userId);
  }

  /** The user's route now. */
  public Route resolve(String userId) {
    NotifyPreference p = entries.get(userId);
    NotifierConfig.User u = config.users().get(userId);
    NotificationContacts c = contacts.get(userId);
    NotifierConfig.Defaults d = config.defaults();
    // 1. Channels: topic, configuration, defaults.
    List<String> names = p != null && !p.getChannels().isEmpty() ? p.getChannels()
        : u != null && u.channels().isPresent() ? u.channels().get() : d.channels();
    // 2. Addresses: topic, configuration, submission contacts, default webhook.
    String email = first(p == null ? null : p.getEmail(), opt(u, NotifierConfig.User::email),
        c == null ? null : c.getEmail());
    String hook = first(p == null ? null : p.getSlackWebhookUrl(),
        opt(u, NotifierConfig.User::slackWebhookUrl), config.slack().webhookUrl().orElse(null));
    String slackUser = first(p == null ? null : p.getSlackUserId(),
        opt(u, NotifierConfig.User::slackUserId), c == null ? null : c.getSlackUserId());
    // 3. Keep only channels that have an address.
    Set<Channel> channels = EnumSet.noneOf(Channel.class);
    for (String n : names) {
      Channel ch = channel(n);
      if (ch == null) {
        LOG.warnf("user %s: unknown channel '%s' ignored", userId, n);
      } else if (ch == Channel.EMAIL && email != null || ch == Channel.SLACK && hook != null) {
        channels.add(ch);
      }
    }
    // 4. Language, zone, quiet hours, digest.
    String locale = first(p == null ? null : p.getLocale(), opt(u, NotifierConfig.User::locale),
        c == null ? null : c.getLocale(), d.locale());
    ZoneId zone = zone(userId, first(p == null ? null : p.getZoneId(),
        opt(u, NotifierConfig.User::zone), d.zone()));
    QuietHours quiet;
    try {
      quiet = p != null
          ? QuietHours.parse(p.getQuietStart(), p.getQuietEnd(), zone)
          : QuietHours.parse(opt(u, NotifierConfig.User::quietStart),
              opt(u, NotifierConfig.User::quietEnd), zone);
    } catch (RuntimeException e) {
      LOG.warnf("user %s: quiet hours ignored: %s", userId, e.getMessage());
      quiet = QuietHours.parse(null, null, zone);
    }
    boolean digest = p != null ? p.getDigest()
        : u != null && u.digest().isPresent() ? u.digest().get() : d.digest();
    return new Route(userId, channels, email, hook, slackUser, Lang.of(locale), zone, quiet, digest);
  }

  /** The user's language and zone, for composing. */
  public NoticeComposer.Profile profile(String userId) {
    Route r = resolve(userId);
    return new NoticeComposer.Profile(r.lang(), r.zone());
  }

  /** The channel a name stands for, or null (the shared input check refuses unknown ones). */
  static Channel channel(String name) {
    try {
      return Channel.valueOf(name.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private ZoneId zone(String userId, String id) {
    try {
      return ZoneId.of(id);
    } catch (java.time.DateTimeException e) {
      LOG.warnf("user %s: zone '%s' is not a time zone, using %s", userId, id,
          config.defaults().zone());
      return ZoneId.of(config.defaults().zone());
    }
  }

  private static String opt(NotifierConfig.User u,
      java.util.function.Function<NotifierConfig.User, Optional<String>> f) {
    return u == null ? null : f.apply(u).orElse(null);
  }

  private static String first(String... values) {
    for (String v : values) {
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return null;
  }
}
