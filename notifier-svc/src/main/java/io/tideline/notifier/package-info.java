/**
 * Notifier: turns decisions into notices (Slack webhook, SMTP e-mail) with the reason, queue position, ETA and a quota-request link; retries, de-duplication, dead letters.
 *
 * <p>Publishes: notices. A thin adapter: decisions come from {@code scheduler-core}.
 */
package io.tideline.notifier;
