package io.tideline.notifier.compose;

import java.time.Instant;

/**
 * A user's request for more guaranteed quota, as received by {@code POST /quota-requests}; the
 * notifier acknowledges it with a QUOTA_REQUEST_ACK notice.
 *
 * @param requestId the caller's id of the request (makes the acknowledgement idempotent)
 * @param userId who asks
 * @param tenant for which tenant
 * @param jobId the job that prompted it (may be empty)
 * @param gpus how many more guaranteed GPUs
 * @param requestedAt when it was asked (event time of the acknowledgement)
 */
public record QuotaRequest(String requestId, String userId, String tenant, String jobId,
    double gpus, Instant requestedAt) {}
