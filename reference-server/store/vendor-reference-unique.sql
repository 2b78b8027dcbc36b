CREATE UNIQUE INDEX transactions_vendor_reference ON transactions (merchant_id, vendor_reference) WHERE vendor_reference IS NOT NULL;
