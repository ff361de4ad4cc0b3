/** The QR code of a text as a PNG (the qrcode package), for the sandbox's qrCode and get --qr-png. */
export async function qrPng(text: string): Promise<Buffer> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toBuffer(text, {
    type: 'png',
    errorCorrectionLevel: 'M',
    margin: 4,
    scale: 4,
    // one fixed filter: the adaptive filter search was most of a sandbox create's time
    rendererOpts: { filterType: 0 } as never,
  });
}
