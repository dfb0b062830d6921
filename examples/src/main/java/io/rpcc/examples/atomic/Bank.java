package io.rpcc.examples.atomic;

import io.rpcc.server.RpccServer;
import io.rpcc.server.atomic.Transaction;
import io.rpcc.server.atomic.TxMap;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bank's accounts, or the clearing house's ledger, as transactional state at one server, and the
 * service functions an atomic transfer runs there: {@code debit} at the paying bank, {@code clear}
 * at the clearing house, {@code credit} at the receiving bank. Each reads and writes only
 * {@link TxMap}s, so a transfer that fails anywhere, or loses a conflict and is run again, leaves no
 * trace; what happens outside rpcc (here a count of notifications sent) waits for the commit.
 */
public final class Bank {
    /** Account balances in cents (a bank), or cleared totals per bank pair (the clearing house). */
    private final TxMap<String, Long> accounts;
    /** Notifications "sent" to account holders: only after a commit. */
    private final AtomicLong notified = new AtomicLong();

    /** A bank, or clearing house, called {@code name}, with {@code balances} as its opening accounts. */
    public Bank(String name, Map<String, Long> balances) {
        this.accounts = TxMap.create(name + "-accounts");
        balances.forEach(accounts::putCommitted);
    }

    /** Registers this bank's service functions. */
    public RpccServer.Builder serve(RpccServer.Builder b) {
        return b.service("debit", p -> debit((Transfer) p))
                .service("credit", p -> credit((Transfer) p))
                .service("clear", p -> clear((Transfer) p))
                .service("peek", p -> peek((Transfer) p));
    }

    /** Takes the amount from the paying account; refuses an overdraft (which aborts the transfer everywhere). */
    Transfer debit(Transfer t) {
        Long balance = accounts.getForUpdate(t.from()); // write lock at once: it is changed below
        if (balance == null) {
            throw new IllegalArgumentException("no account '" + t.from() + "' at this bank");
        }
        if (balance < t.amount()) {
            throw new IllegalStateException("account '" + t.from() + "' has " + balance + ", less than " + t.amount());
        }
        accounts.put(t.from(), balance - t.amount());
        Transaction.current().onCommit(notified::incrementAndGet);
        return t;
    }

    /** Adds the amount to the receiving account, which must exist. */
    Transfer credit(Transfer t) {
        Long balance = accounts.getForUpdate(t.to());
        if (balance == null) {
            throw new IllegalArgumentException("no account '" + t.to() + "' at this bank");
        }
        accounts.put(t.to(), balance + t.amount());
        Transaction.current().onCommit(notified::incrementAndGet);
        return t;
    }

    /** Adds the amount to the ledger of the bank pair. */
    Transfer clear(Transfer t) {
        String pair = t.fromBank() + "->" + t.toBank();
        Long total = accounts.getForUpdate(pair);
        accounts.put(pair, (total == null ? 0 : total) + t.amount());
        return t;
    }

    /** Reads the accounts of the transfer (their committed values): what a plain chain may do with a TxMap. */
    Transfer peek(Transfer t) {
        accounts.get(t.from());
        accounts.get(t.to());
        return t;
    }

    /** The committed balances (or ledger). */
    public Map<String, Long> committed() {
        return accounts.committed();
    }

    /** How many notifications were sent, one per committed debit or credit. */
    public long notified() {
        return notified.get();
    }
}
