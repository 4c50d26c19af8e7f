"use client";
import { PageError } from "@/components/page-error";

export default PageError;
