package io.tideline.notifier.app;

import io.tideline.notifier.compose.Lang;
import io.tideline.notifier.delivery.Channel;
import io.tideline.notifier.delivery.QuietHours;
import java.time.ZoneId;
import java.util.Set;

/**
 * Where and how one user is told (O3): the channels that have an address, the addresses, the
 * language and zone, quiet hours and whether bursts are digested.
 *
 * @param userId user
 * @param channels channels to send on (only those with an address)
 * @param email e-mail address or null
 * @param slackWebhookUrl webhook to post to, or null
 * @param slackUserId member to mention, or null
 * @param lang language
 * @param zone zone
 * @param quiet quiet hours
 * @param digest whether bursts are digested
 */
public record Route(String userId, Set<Channel> channels, String email, String slackWebhookUrl,
    String slackUserId, Lang lang, ZoneId zone, QuietHours quiet, boolean digest) {

  /** The destination a rate limit applies to on {@code channel}. */
  public String destination(Channel channel) {
    return channel == Channel.SLACK ? slackWebhookUrl : email;
  }
}
