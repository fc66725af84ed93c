#!/usr/bin/env bash
# Tesseract reads scanned PDF pages and images (OCR). It is a system program: install Debian's tesseract-ocr
# when it is missing (as root with apt-get, else with sudo). If that cannot be done, warn and go on: the app
# runs without it and lists scanned pages and images as skipped.
if command -v tesseract >/dev/null 2>&1; then exit 0; fi
echo "Installing Debian's tesseract-ocr (OCR of scanned pages and images)..." >&2
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq tesseract-ocr >/dev/null && exit 0
  elif command -v sudo >/dev/null 2>&1; then
    sudo apt-get update -qq && sudo apt-get install -y -qq tesseract-ocr >/dev/null && exit 0
  fi
fi
echo "WARNING: could not install tesseract-ocr; scanned pages and images will be skipped until it is" >&2
echo "  installed (sudo apt-get install tesseract-ocr; macOS: brew install tesseract). Continuing." >&2
exit 0
