"""Paraformer (FunASR): a non-autoregressive recogniser. A SAN-M encoder, a CIF predictor that counts the tokens
and places them, and a SAN-M decoder that predicts them all in one pass. model.py holds the data flow."""
