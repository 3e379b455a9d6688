// XOF out end to end over HTTP against the real server (`deno task start`'s development profile, its
// default fiat destination cooldown of 0), as a merchant in Ouagadougou drives it: a mobile money pay-in
// credited to XOF/MOMO by the simulator, part of it converted to USDT (`conversion.confirmed` signed), the
// rest withdrawn to its mobile money number through operator review and the payout simulator to CONFIRMED
// (`withdrawal.*` signed); then a bank withdrawal the approve route refuses and the operator completes with
// the bank's reference. Balances are read as the merchant reads them (`GET /v1/wallets/balance`), exact to
// the unit after every step.
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { approvedMerchant, jsonClient, startGateway, until } from "./process.ts";
import { startReceiver } from "./receiver.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789";

type Balance = {
  walletId: string;
  currency: string;
  rail: string;
  balance: string;
  available: string;
  reserved: string;
  reservedInReview: string;
  reservedInFlight: string;
};

Deno.test({
  name: "XOF out end to end: momo pay-in, conversion to USDT, momo withdrawal reviewed, bank completed",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-xofout-" });
    const receiver = startReceiver();
    // Nothing about the cooldown is set: development's default must let a fresh server withdraw at once.
    const gw = await startGateway({ DATA_DIR: dataDir, ADMIN_TOKEN, SIMULATOR_DELAY_MS: "300" });
    const { call, admin } = jsonClient(gw.url, ADMIN_TOKEN);
    try {
      const { key } = await approvedMerchant(gw.url, ADMIN_TOKEN);
      const api = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
        call(method, path, { "x-api-key": key, ...extra }, body);
      const endpoint = await api("POST", "/v1/webhooks/endpoints", {
        url: receiver.url,
        events: [
          "payin.confirmed",
          "conversion.confirmed",
          "conversion.failed",
          "withdrawal.requested",
          "withdrawal.approved",
          "withdrawal.broadcast",
          "withdrawal.confirmed",
          "withdrawal.failed",
        ],
      });
      assertEquals(endpoint.status, 201, JSON.stringify(endpoint.json));
      receiver.setSecret(endpoint.json.data.secret);

      /** The merchant's wallets as `GET /v1/wallets/balance` shows them, by rail. */
      const balances = async (): Promise<Record<string, Balance>> => {
        const res = await api("GET", "/v1/wallets/balance");
        assertEquals(res.status, 200, JSON.stringify(res.json));
        assertEquals(res.json.data.isSandbox, false);
        return Object.fromEntries(res.json.data.balances.map((b: Balance) => [b.rail, b]));
      };
      /** [balance, available, reservedInReview, reservedInFlight] of one wallet. */
      const wallet = async (rail: "MOMO" | "CARD" | "TRC20") => {
        const b = (await balances())[rail];
        return [b.balance, b.available, b.reservedInReview, b.reservedInFlight];
      };
      /** Every signed delivery of `event` about `id`, each checked with README's verification. */
      const signedHook = async (event: string, id: string, field = "id") => {
        const hook = await receiver.waitFor((w) => w.event === event && w.data[field] === id, 30_000);
        assert(hook.signatureValid, `${event} is signed with the endpoint's secret`);
        assertEquals([hook.livemode, hook.test], [true, false], `${event} is a live event`);
        return hook;
      };
      const momoPayin = async (amount: string) => {
        const res = await api("POST", "/v1/payments", {
          amount,
          paymentMethod: "MOBILE_MONEY",
          customerPhone: "+22654123456",
        });
        assertEquals(res.status, 201, JSON.stringify(res.json));
        const id: string = res.json.data.transactionId;
        assertEquals(res.json.data.nextStep, "otp");
        const otp = await api("POST", `/v1/payments/${id}/submit-otp`, { otp: "123456" });
        assertEquals(otp.status, 200, JSON.stringify(otp.json));
        const done = await until("pay-in CONFIRMED", async () => {
          const r = await api("GET", `/v1/payments/${id}`);
          return r.json.data.status === "CONFIRMED" ? r.json.data : undefined;
        });
        await signedHook("payin.confirmed", id, "transactionId");
        return done;
      };

      await t.step(
        "a customer pays 50,000 XOF by mobile money: XOF/MOMO holds 49,000 after 2 %",
        async () => {
          assertEquals(await wallet("MOMO"), ["0", "0", "0", "0"]);
          const p = await momoPayin("50000");
          assertEquals([p.amountReceived, p.serviceFee, p.netAmount], ["50000", "1000", "49000"]);
          assertEquals(await wallet("MOMO"), ["49000", "49000", "0", "0"]);
          assertEquals(await wallet("CARD"), ["0", "0", "0", "0"]);
          assertEquals(await wallet("TRC20"), ["0.000000", "0.000000", "0.000000", "0.000000"]);
        },
      );

      await t.step("20,000 XOF converted to USDT at the peg and the fixed rate, less 1 %", async () => {
        const preview = await api(
          "GET",
          "/v1/conversions/wallet/preview?fromCurrency=XOF&toCurrency=USDT_TRC20&amount=20000",
        );
        assertEquals(preview.status, 200, JSON.stringify(preview.json));
        const q = preview.json.data;
        // 1 USDT = 0.92 EUR (development's fixed rate) = 0.92 x 655.957 XOF.
        const exact = new Decimal(1).div(new Decimal("0.92").times("655.957"));
        assert(new Decimal(q.rate).minus(exact).abs().lessThan("1e-16"), `rate ${q.rate} vs ${exact}`);
        const gross = new Decimal(20000).times(q.rate).toDecimalPlaces(6, Decimal.ROUND_DOWN);
        const fee = gross.times("0.01").toDecimalPlaces(6, Decimal.ROUND_UP);
        const net = gross.minus(fee);
        assertEquals([q.toAmountGross, q.fee, q.toAmountNet], [
          gross.toFixed(6),
          fee.toFixed(6),
          net.toFixed(6),
        ]);
        assertEquals(await wallet("MOMO"), ["49000", "49000", "0", "0"], "a preview reserves nothing");

        const all = await balances();
        const idemKey = crypto.randomUUID();
        const body = { fromWalletId: all.MOMO.walletId, toWalletId: all.TRC20.walletId, fromAmount: "20000" };
        const first = await api("POST", "/v1/conversions/wallet", body, { "idempotency-key": idemKey });
        assertEquals(first.status, 201, JSON.stringify(first.json));
        const c = first.json.data;
        assertMatch(c.id, /^cnv_/);
        assertEquals([c.status, c.fromAmount, c.fromCurrency, c.toCurrency], [
          "CONFIRMED",
          "20000",
          "XOF",
          "USDT_TRC20",
        ]);
        assertEquals([c.toAmountGross, c.fee, c.toAmountNet], [
          gross.toFixed(6),
          fee.toFixed(6),
          net.toFixed(6),
        ]);
        // The merchant's retry with the same key gets the same conversion, not a second one.
        const retry = await api("POST", "/v1/conversions/wallet", body, { "idempotency-key": idemKey });
        assertEquals([retry.status, retry.json.data.id], [first.status, c.id]);
        assertEquals(await wallet("MOMO"), ["29000", "29000", "0", "0"]);
        assertEquals(await wallet("TRC20"), [net.toFixed(6), net.toFixed(6), "0.000000", "0.000000"]);
        const hook = await signedHook("conversion.confirmed", c.id);
        assertEquals([hook.data.status, hook.data.fromAmount, hook.data.toAmountNet], [
          "CONFIRMED",
          "20000",
          net.toFixed(6),
        ]);
        const listed = await api("GET", "/v1/conversions");
        assertEquals(listed.json.data.items.map((i: { id: string }) => i.id), [c.id]);
        assert(!receiver.received.some((w) => w.event === "conversion.failed"));
      });

      let momoDest = "";
      await t.step("without a destination XOF cannot leave; a momo number is usable at once", async () => {
        const none = await api(
          "POST",
          "/v1/withdrawals",
          { amount: "29000", currency: "XOF", rail: "MOMO" },
          {
            "idempotency-key": crypto.randomUUID(),
          },
        );
        assertEquals([none.status, none.json.error.code], [400, "FIAT_DESTINATION_REQUIRED"]);
        const wrongOperator = await api("POST", "/v1/merchants/fiat-destinations", {
          kind: "MOMO",
          momoOperator: "OPERATOR_A_BF",
          momoPhone: "+22670123456",
        });
        assertEquals([wrongOperator.status, wrongOperator.json.error.code], [
          400,
          "FIAT_DESTINATION_INVALID",
        ]);
        const reg = await api("POST", "/v1/merchants/fiat-destinations", {
          kind: "MOMO",
          momoOperator: "OPERATOR_B_BF",
          momoPhone: "+22670123456",
          label: "Shop wallet",
        });
        assertEquals(reg.status, 201, JSON.stringify(reg.json));
        assertEquals([reg.json.data.isPrimary, reg.json.data.availableAt], [true, reg.json.data.createdAt]);
        momoDest = reg.json.data.id;
        assertEquals(await wallet("MOMO"), ["29000", "29000", "0", "0"]);
      });

      await t.step(
        "the remaining 29,000 XOF withdrawn to it: reviewed, approved, paid, CONFIRMED",
        async () => {
          const idemKey = crypto.randomUUID();
          const body = { amount: "29000", currency: "XOF", rail: "MOMO" };
          const res = await api("POST", "/v1/withdrawals", body, { "idempotency-key": idemKey });
          assertEquals(res.status, 201, JSON.stringify(res.json));
          const w = res.json.data;
          assertEquals(
            [w.status, w.amount, w.fee, w.netAmount, w.currency, w.rail, w.chain, w.destinationAddress],
            ["PENDING_REVIEW", "29000", "500", "28500", "XOF", "MOMO", "MOMO", "+22670123456"],
          );
          assertEquals(w.fiatDestinationId, momoDest);
          const again = await api("POST", "/v1/withdrawals", body, { "idempotency-key": idemKey });
          assertEquals(again.json.data.id, w.id, "a retried request is the same withdrawal");
          // Taken out of the balance and shown as in review; nothing is spendable any more.
          assertEquals(await wallet("MOMO"), ["0", "0", "29000", "0"]);
          const more = await api(
            "POST",
            "/v1/withdrawals",
            { amount: "1000", currency: "XOF", rail: "MOMO" },
            {
              "idempotency-key": crypto.randomUUID(),
            },
          );
          assertEquals(more.json.error.code, "INSUFFICIENT_BALANCE");
          const requested = await signedHook("withdrawal.requested", w.id);
          assertEquals([requested.data.status, requested.data.netAmount], ["PENDING_REVIEW", "28500"]);

          const approved = await admin("POST", `/admin/api/review/${w.id}/approve`, { reviewer: "awa" });
          assertEquals(approved.status, 200, JSON.stringify(approved.json));
          assertEquals(approved.json.data.item.status, "APPROVED");
          const confirmed = await signedHook("withdrawal.confirmed", w.id);
          assertEquals([confirmed.data.status, confirmed.data.netAmount], ["CONFIRMED", "28500"]);
          assertMatch(String(confirmed.data.txHash), /^sim_momo_out_/);
          for (const event of ["withdrawal.approved", "withdrawal.broadcast"]) await signedHook(event, w.id);
          const done = (await api("GET", `/v1/withdrawals/${w.id}`)).json.data;
          assertEquals([done.status, done.providerRef, done.txHash], [
            "CONFIRMED",
            confirmed.data.txHash,
            confirmed.data.txHash,
          ]);
          assertEquals(await wallet("MOMO"), ["0", "0", "0", "0"]);
          // Paid once: one delivery of each event for this withdrawal.
          const confirmedHooks = receiver.received.filter((r) =>
            r.event === "withdrawal.confirmed" && r.data.id === w.id
          );
          assertEquals(new Set(confirmedHooks.map((r) => r.eventId)).size, 1);
          assert(!receiver.received.some((r) => r.event === "withdrawal.failed"));
        },
      );

      await t.step(
        "a bank withdrawal: approve refused, completed by the operator with the bank's ref",
        async () => {
          const p = await momoPayin("20000");
          assertEquals(p.netAmount, "19600");
          assertEquals(await wallet("MOMO"), ["19600", "19600", "0", "0"]);
          const reg = await api("POST", "/v1/merchants/fiat-destinations", {
            kind: "BANK",
            bankName: "Banque Atlantique",
            bankAccountName: "Boutique Ouaga SARL",
            bankIban: "DE89370400440532013000",
          });
          assertEquals(reg.status, 201, JSON.stringify(reg.json));
          assertEquals(reg.json.data.isPrimary, false, "the momo number stays the primary");
          const res = await api("POST", "/v1/withdrawals", {
            amount: "19600",
            currency: "XOF",
            rail: "MOMO",
            fiatDestinationId: reg.json.data.id,
          }, { "idempotency-key": crypto.randomUUID() });
          assertEquals(res.status, 201, JSON.stringify(res.json));
          const w = res.json.data;
          assertEquals([w.status, w.chain, w.destinationAddress, w.netAmount], [
            "PENDING_REVIEW",
            "BANK",
            "DE89370400440532013000",
            "19100",
          ]);
          assertEquals(await wallet("MOMO"), ["0", "0", "19600", "0"]);

          const refused = await admin("POST", `/admin/api/review/${w.id}/approve`, { reviewer: "awa" });
          assertEquals([refused.status, refused.json.error.code], [
            400,
            "WITHDRAWAL_APPROVE_NOT_SUPPORTED_FOR_FIAT",
          ]);
          assertEquals((await api("GET", `/v1/withdrawals/${w.id}`)).json.data.status, "PENDING_REVIEW");
          assertEquals(await wallet("MOMO"), ["0", "0", "19600", "0"], "the refusal moves nothing");

          const completed = await admin("POST", `/admin/api/review/${w.id}/complete-fiat`, {
            reviewer: "awa",
            providerRef: "BA-2026-000123",
          });
          assertEquals(completed.status, 200, JSON.stringify(completed.json));
          assertEquals(completed.json.data.item.status, "CONFIRMED");
          const confirmed = await signedHook("withdrawal.confirmed", w.id);
          assertEquals([confirmed.data.status, confirmed.data.txHash, confirmed.data.chain], [
            "CONFIRMED",
            "BA-2026-000123",
            "BANK",
          ]);
          const seen = (await api("GET", `/v1/withdrawals/${w.id}`)).json.data;
          assertEquals([seen.status, seen.providerRef], ["CONFIRMED", "BA-2026-000123"]);
          const twice = await admin("POST", `/admin/api/review/${w.id}/complete-fiat`, {
            reviewer: "awa",
            providerRef: "BA-2026-000124",
          });
          assertEquals(twice.json.error.code, "WITHDRAWAL_NOT_PENDING_REVIEW");
          assertEquals(await wallet("MOMO"), ["0", "0", "0", "0"]);
          assertEquals(await wallet("CARD"), ["0", "0", "0", "0"]);
        },
      );

      await t.step(
        "the merchant's history: two withdrawals CONFIRMED, USDT kept from the conversion",
        async () => {
          const list = await api("GET", "/v1/withdrawals");
          assertEquals(list.status, 200, JSON.stringify(list.json));
          const items = list.json.data.items ?? list.json.data;
          assertEquals(
            items.map((i: { chain: string; status: string }) => `${i.chain}:${i.status}`).sort(),
            ["BANK:CONFIRMED", "MOMO:CONFIRMED"],
          );
          const usdt = (await balances()).TRC20;
          const conversions = (await api("GET", "/v1/conversions")).json.data.items;
          assertEquals(usdt.balance, conversions[0].toAmountNet);
        },
      );
    } finally {
      await gw.stop();
      await receiver.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
