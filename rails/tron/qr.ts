// QR codes for deposit addresses, as PNG data URLs the hosted pages embed directly (no CDN).
// qrcode's PNG path costs a few milliseconds: callers precompute them off the hot path.
// @ts-types="@types/qrcode"
import QRCode from "qrcode";

/** A PNG QR code of `text` as `data:image/png;base64,...` (error correction M, 4-module quiet zone). */
export async function qrPngDataUrl(text: string): Promise<string> {
  if (typeof text !== "string" || text.length === 0) throw new RangeError("nothing to encode");
  return await QRCode.toDataURL(text, {
    type: "image/png",
    errorCorrectionLevel: "M",
    margin: 4,
    scale: 6,
    color: { dark: "#000000ff", light: "#ffffffff" },
  });
}
