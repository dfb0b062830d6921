package io.rpcc.examples.atomic;

import io.rpcc.core.RpccType;

/**
 * A transfer of {@code amount} from account {@code from} at bank {@code fromBank} to account {@code to}
 * at bank {@code toBank}, cleared by a third site that keeps the ledger of transfers between banks.
 *
 * @param id the transfer's number (unique per client)
 * @param fromBank the server of the paying bank
 * @param from the paying account
 * @param toBank the server of the receiving bank
 * @param to the receiving account
 * @param amount how much, in cents, positive
 */
@RpccType
public record Transfer(String id, String fromBank, String from, String toBank, String to, long amount) {
}
