// The operator page's words, in French (default) and English.
import type { Lang } from "../i18n.ts";

const fr = {
  title: "Console des opérateurs",
  signIn: "Connexion",
  email: "E-mail",
  password: "Mot de passe",
  code: "Code à 6 chiffres (ou code de secours)",
  submitSignIn: "Se connecter",
  signOut: "Se déconnecter",
  queue: "À traiter",
  search: "Rechercher",
  searchHint: "id, hash de transaction, externalRef, téléphone ou e-mail du client",
  withdrawalsInReview: "Retraits en revue",
  payoutsAwaitingApproval: "Paiements au-dessus du seuil d'approbation",
  waitingToSend: "En attente du portefeuille chaud depuis trop longtemps",
  bulkInReview: "Paiements groupés en revue",
  payinHoldsOpen: "Encaissements retenus",
  disputesOpen: "Litiges à décider",
  nothingWaits: "Rien n'attend.",
  item: "Élément",
  merchant: "Marchand",
  amount: "Montant",
  fee: "Frais",
  net: "Net envoyé",
  destination: "Destination",
  status: "Statut",
  created: "Créé",
  txHash: "Transaction",
  approvals: "Approbations",
  decisions: "Décisions",
  trail: "Journal d'audit",
  note: "Note (obligatoire pour rejeter)",
  approve: "Approuver",
  reject: "Rejeter",
  back: "Retour à la file",
  noResult: "Aucun résultat.",
  found: "Trouvé par",
  signedInAs: "Connecté :",
  viewerOnly: "Votre rôle permet de lire, pas de décider.",
  decided: "Décision enregistrée.",
  firstApproval: "Première approbation enregistrée : un second réviseur doit approuver.",
  open: "Ouvrir",
};

const en: typeof fr = {
  title: "Operator console",
  signIn: "Sign in",
  email: "E-mail",
  password: "Password",
  code: "6-digit code (or a backup code)",
  submitSignIn: "Sign in",
  signOut: "Sign out",
  queue: "To do",
  search: "Search",
  searchHint: "id, transaction hash, externalRef, customer phone or e-mail",
  withdrawalsInReview: "Withdrawals in review",
  payoutsAwaitingApproval: "Payouts above the approval amount",
  waitingToSend: "Waiting for the hot wallet too long",
  bulkInReview: "Bulk payments in review",
  payinHoldsOpen: "Held pay-ins",
  disputesOpen: "Disputes to decide",
  nothingWaits: "Nothing waits.",
  item: "Item",
  merchant: "Merchant",
  amount: "Amount",
  fee: "Fee",
  net: "Net sent",
  destination: "Destination",
  status: "Status",
  created: "Created",
  txHash: "Transaction",
  approvals: "Approvals",
  decisions: "Decisions",
  trail: "Audit trail",
  note: "Note (required to reject)",
  approve: "Approve",
  reject: "Reject",
  back: "Back to the queue",
  noResult: "Nothing found.",
  found: "Found by",
  signedInAs: "Signed in:",
  viewerOnly: "Your role may read, not decide.",
  decided: "Decision recorded.",
  firstApproval: "First approval recorded: a second reviewer must approve.",
  open: "Open",
};

export type AdminWords = typeof fr;

export function adminWords(lang: Lang): AdminWords {
  return lang === "en" ? en : fr;
}

/** Catalogue codes an operator meets on the page, in their words (the message follows). */
export function errorLine(lang: Lang, code: string): string {
  const t: Record<string, [string, string]> = {
    UNAUTHORIZED: ["E-mail ou mot de passe incorrect.", "Wrong e-mail or password."],
    TOTP_REQUIRED: ["Entrez le code de votre application.", "Enter your app's code."],
    TOTP_INVALID: ["Code incorrect, expiré ou déjà utilisé.", "Code wrong, expired or already used."],
    BACKUP_CODE_INVALID: ["Code de secours inconnu ou déjà utilisé.", "Backup code unknown or already used."],
    RATE_LIMIT_EXCEEDED: ["Trop d'essais : réessayez plus tard.", "Too many tries: try again later."],
    REASON_NOTE_REQUIRED: ["Un rejet demande une note.", "A rejection needs a note."],
    FORBIDDEN: ["Action refusée.", "Refused."],
  };
  const line = t[code];
  return line ? line[lang === "en" ? 1 : 0] : code;
}
